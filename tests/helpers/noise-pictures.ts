import sharp from 'sharp'

/**
 * A PNG of gaussian noise: large as a file, like a provider's result or a photo's grain. `blur`
 * makes it compress about as a photo does; `sigma` is the noise's spread around mid-grey.
 */
export function noisePng({
  width,
  height = width,
  sigma = 40,
  blur,
  background = '#808080',
}: {
  width: number
  height?: number
  sigma?: number
  blur?: number
  background?: string
}) {
  const noise = sharp({
    create: { width, height, channels: 3, background, noise: { type: 'gaussian', mean: 128, sigma } },
  })
  return (blur ? noise.blur(blur) : noise).png().toBuffer()
}

// The default, offline video provider: a slow Ken Burns move over a still (the uploaded photo, or a
// scene drawn from the prompt), encoded by ffmpeg as a real H.264 MP4.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { ProviderError } from '../types.ts'
import type {
  GeneratedMedia,
  ImageInput,
  ProviderContext,
  VideoProvider,
  VideoQuality,
  VideoRequest,
} from '../types.ts'
import { videoSize } from '#domain/generation/video-dimensions.ts'
import type { VideoSize } from '#domain/generation/video-dimensions.ts'
import { runFfmpeg } from './ffmpeg.ts'
import { sourceImage } from './source-image.ts'
import { renderTextScene } from './text-scene.ts'

const DURATION_SECONDS = 4
const FPS = 24
/** Stills are drawn larger than the video so that zoompan's whole-pixel crops don't jitter. */
const SUPERSAMPLE = 1.5
/** Share of the progress bar taken by drawing the still; ffmpeg's encoding takes the rest. */
const STILL_PROGRESS = 10

const ENCODING: Record<VideoQuality, { preset: string; crf: string }> = {
  stable: { preset: 'medium', crf: '20' },
  fast: { preset: 'veryfast', crf: '24' },
}

interface Motion {
  zoomTo: number
  /** Point of the still the view is centred on, as fractions of its width and height. */
  focusFrom: [x: number, y: number]
  focusTo: [x: number, y: number]
}

// Photos drift up toward where a pet's face usually is; drawn scenes pan sideways.
const PHOTO_MOTION: Motion = { zoomTo: 1.15, focusFrom: [0.5, 0.5], focusTo: [0.5, 0.38] }
const SCENE_MOTION: Motion = { zoomTo: 1.1, focusFrom: [0.4, 0.5], focusTo: [0.6, 0.45] }

export function createLocalVideoProvider(): VideoProvider {
  return { name: 'local', generate: renderLocalVideo }
}

async function renderLocalVideo(request: VideoRequest, context: ProviderContext): Promise<GeneratedMedia> {
  const size = videoSize(request.aspectRatio, request.resolution)
  const canvas = { width: even(size.width * SUPERSAMPLE), height: even(size.height * SUPERSAMPLE) }
  const workDir = await mkdtemp(join(tmpdir(), 'pawtrait-video-'))
  try {
    const photo = sourceImage(request)
    const still = photo ? await photoStill(photo, canvas) : await renderTextScene(request.prompt, canvas)
    const stillPath = join(workDir, 'still.jpg')
    const videoPath = join(workDir, 'video.mp4')
    await writeFile(stillPath, still)
    await context.onProgress(STILL_PROGRESS)

    const motion = photo ? PHOTO_MOTION : SCENE_MOTION
    await runFfmpeg(kenBurnsArgs(stillPath, videoPath, size, motion, request.quality), {
      signal: context.signal,
      durationSeconds: DURATION_SECONDS,
      onProgress: (percent) =>
        context.onProgress(STILL_PROGRESS + Math.round((percent * (100 - STILL_PROGRESS)) / 100)),
    })
    return { bytes: await readFile(videoPath), mimeType: 'video/mp4' }
  } catch (error) {
    if (error instanceof ProviderError || context.signal.aborted) throw error
    throw new ProviderError('The offline video renderer failed.', { retryable: false, cause: error })
  } finally {
    await rm(workDir, { recursive: true, force: true })
  }
}

/** The photo fitted whole onto a blurred, dimmed copy of itself that fills the frame. */
async function photoStill(image: ImageInput, canvas: VideoSize): Promise<Buffer> {
  try {
    // Blurring a tiny copy and scaling it up is far cheaper than a large blur at full size.
    const tinyBackdrop = await sharp(image.bytes)
      .rotate()
      .resize(Math.ceil(canvas.width / 16), Math.ceil(canvas.height / 16), { fit: 'cover' })
      .blur(1.5)
      .modulate({ brightness: 0.7 })
      .png()
      .toBuffer()
    const fitted = await sharp(image.bytes)
      .rotate()
      .resize(Math.round(canvas.width * 0.9), Math.round(canvas.height * 0.9), { fit: 'inside' })
      .toBuffer()
    return await sharp(tinyBackdrop)
      .resize(canvas.width, canvas.height, { kernel: 'cubic' })
      .composite([{ input: fitted, gravity: 'centre' }])
      .jpeg({ quality: 92 })
      .toBuffer()
  } catch (error) {
    throw new ProviderError('The uploaded image could not be read.', { retryable: false, cause: error })
  }
}

function kenBurnsArgs(
  stillPath: string,
  videoPath: string,
  size: VideoSize,
  motion: Motion,
  quality: VideoQuality,
): string[] {
  const frames = DURATION_SECONDS * FPS
  const t = `(on/${frames - 1})`
  // Smoothstep, so the move starts and ends gently instead of at constant speed.
  const eased = `(${t}*${t}*(3-2*${t}))`
  const towards = (from: number, to: number) => `(${from}+${to - from}*${eased})`
  const [[fromX, fromY], [toX, toY]] = [motion.focusFrom, motion.focusTo]
  const zoompan = [
    `z='${towards(1, motion.zoomTo)}'`,
    `x='(iw-iw/zoom)*${towards(fromX, toX)}'`,
    `y='(ih-ih/zoom)*${towards(fromY, toY)}'`,
    `d=${frames}`,
    `s=${size.width}x${size.height}`,
    `fps=${FPS}`,
  ].join(':')
  const { preset, crf } = ENCODING[quality]
  return [
    ['-i', stillPath],
    ['-vf', `zoompan=${zoompan},format=yuv420p`, '-frames:v', String(frames)],
    ['-c:v', 'libx264', '-preset', preset, '-crf', crf, '-profile:v', 'high', '-pix_fmt', 'yuv420p'],
    ['-movflags', '+faststart', '-an', videoPath],
  ].flat()
}

function even(value: number): number {
  return Math.round(value / 2) * 2
}

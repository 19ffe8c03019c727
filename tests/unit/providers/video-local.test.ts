import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { FfmpegError, resolveFfmpegPath, runFfmpeg } from '#worker/providers/video/ffmpeg.ts'
import { createLocalVideoProvider } from '#worker/providers/video/local.ts'
import type { VideoRequest } from '#worker/providers/types.ts'
import { testContext } from './provider-fixtures.ts'

const provider = createLocalVideoProvider()
let petPhoto: Buffer

beforeAll(async () => {
  const face = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="800">
    <circle cx="300" cy="360" r="200" fill="#5a3a22"/><circle cx="230" cy="320" r="30" fill="#fff"/>
    <circle cx="370" cy="320" r="30" fill="#fff"/></svg>`
  petPhoto = await sharp({ create: { width: 600, height: 800, channels: 3, background: '#d99a5b' } })
    .composite([{ input: Buffer.from(face) }])
    .jpeg()
    .toBuffer()
})

function request(overrides: Partial<VideoRequest>): VideoRequest {
  return {
    mode: 'image',
    image: { bytes: petPhoto, mimeType: 'image/jpeg' },
    prompt: 'A golden dog running on the beach at sunset',
    aspectRatio: '16:9',
    resolution: '720p',
    quality: 'fast',
    ...overrides,
  }
}

/** Types of the top-level MP4 boxes, in file order. */
function topLevelBoxes(bytes: Buffer): string[] {
  const boxes: string[] = []
  for (let offset = 0; offset + 8 <= bytes.length;) {
    const size = bytes.readUInt32BE(offset)
    boxes.push(bytes.toString('latin1', offset + 4, offset + 8))
    if (size < 8) break
    offset += size
  }
  return boxes
}

/** What ffmpeg itself reads from the file: codec line, size, frame rate, duration. */
async function probe(bytes: Buffer) {
  const dir = await mkdtemp(join(tmpdir(), 'probe-'))
  try {
    const file = join(dir, 'video.mp4')
    await writeFile(file, bytes)
    const { stderr } = spawnSync(resolveFfmpegPath(), ['-hide_banner', '-i', file], { encoding: 'utf8' })
    const video = /Video: (\w+)[^,]*, (\w+)[^,]*, (\d+)x(\d+).*?([\d.]+) fps/.exec(stderr)
    const duration = /Duration: (\d+):(\d+):([\d.]+)/.exec(stderr)
    if (!video || !duration) throw new Error(`Unexpected ffmpeg output:\n${stderr}`)
    return {
      codec: video[1],
      pixelFormat: video[2],
      width: Number(video[3]),
      height: Number(video[4]),
      fps: Number(video[5]),
      seconds: Number(duration[1]) * 3600 + Number(duration[2]) * 60 + Number(duration[3]),
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

async function expectMp4(bytes: Buffer, width: number, height: number) {
  const boxes = topLevelBoxes(bytes)
  expect(boxes[0]).toBe('ftyp')
  // +faststart: the index comes before the media data, so playback starts while downloading.
  expect(boxes.indexOf('moov')).toBeGreaterThan(-1)
  expect(boxes.indexOf('moov')).toBeLessThan(boxes.indexOf('mdat'))
  expect(bytes.includes('avc1', 0, 'latin1')).toBe(true)
  const info = await probe(bytes)
  expect(info).toMatchObject({ codec: 'h264', pixelFormat: 'yuv420p', width, height })
  expect(info.fps).toBeGreaterThanOrEqual(24)
  expect(info.fps).toBeLessThanOrEqual(30)
  expect(info.seconds).toBeCloseTo(4, 0)
}

describe('local video provider', () => {
  it('animates the uploaded photo into a landscape 720p MP4', async () => {
    const ctx = testContext()
    const video = await provider.generate(request({}), ctx)
    expect(video.mimeType).toBe('video/mp4')
    await expectMp4(video.bytes, 1280, 720)
    expect(ctx.progress.at(-1)).toBe(100)
    expect(ctx.progress).toEqual([...ctx.progress].sort((a, b) => a - b))
  })

  it('renders portrait at 720x1280 even when 1280p is asked for', async () => {
    const video = await provider.generate(
      request({ aspectRatio: '9:16', resolution: '1280p', quality: 'stable' }),
      testContext(),
    )
    await expectMp4(video.bytes, 720, 1280)
  })

  it('draws a scene from the prompt in text mode, in both aspect ratios', async () => {
    const landscape = await provider.generate(
      request({ mode: 'text', image: null, resolution: '1280p' }),
      testContext(),
    )
    await expectMp4(landscape.bytes, 1920, 1080)
    const portrait = await provider.generate(request({ mode: 'text', image: null, aspectRatio: '9:16' }), testContext())
    await expectMp4(portrait.bytes, 720, 1280)
  })

  it('fails readably, without retry, when image mode has no image or an unreadable one', async () => {
    await expect(provider.generate(request({ image: null }), testContext())).rejects.toMatchObject({
      name: 'ProviderError',
      retryable: false,
      message: 'Please upload an image first for image-to-video generation',
    })
    const garbage = { bytes: Buffer.from('not an image'), mimeType: 'image/png' as const }
    await expect(provider.generate(request({ image: garbage }), testContext())).rejects.toMatchObject({
      retryable: false,
      message: 'The uploaded image could not be read.',
    })
  })

  it('stops when aborted and leaves no temporary files behind', async () => {
    // A temporary folder of this test's own: other test files' workers render videos meanwhile.
    const ownTmp = await mkdtemp(join(tmpdir(), 'pawtrait-video-test-'))
    const sharedTmp = process.env.TMPDIR
    process.env.TMPDIR = ownTmp
    onTestFinished(async () => {
      if (sharedTmp === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = sharedTmp
      await rm(ownTmp, { recursive: true, force: true })
    })
    const controller = new AbortController()
    const reason = new Error('worker shutting down')
    const ctx = {
      signal: controller.signal,
      onProgress: (percent: number) => {
        if (percent >= 10) setTimeout(() => controller.abort(reason), 50)
      },
    }
    await expect(provider.generate(request({ resolution: '1280p', quality: 'stable' }), ctx)).rejects.toBe(reason)
    expect(await readdir(ownTmp)).toEqual([])
  })
})

describe('runFfmpeg', () => {
  it('prefers FFMPEG_PATH, then the installed binary', () => {
    expect(resolveFfmpegPath({ FFMPEG_PATH: '/opt/ffmpeg/bin/ffmpeg' })).toBe('/opt/ffmpeg/bin/ffmpeg')
    expect(resolveFfmpegPath({})).toMatch(/@ffmpeg-installer.*ffmpeg$/)
  })

  it('kills ffmpeg when the signal aborts', async () => {
    const marker = randomUUID()
    const controller = new AbortController()
    const running = runFfmpeg(
      ['-f', 'lavfi', '-i', 'testsrc=s=320x240:r=25:d=600', '-metadata', `comment=${marker}`, '-f', 'null', '-'],
      { signal: controller.signal },
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await processesMentioning(marker)).toHaveLength(1)
    const startedAt = Date.now()
    controller.abort(new Error('stop'))
    await expect(running).rejects.toThrow('stop')
    expect(Date.now() - startedAt).toBeLessThan(2000)
    expect(await processesMentioning(marker)).toEqual([])
  })

  it('reports progress as a percentage of the expected duration', async () => {
    const progress: number[] = []
    await runFfmpeg(['-f', 'lavfi', '-i', 'testsrc=s=160x120:r=25:d=2', '-f', 'null', '-'], {
      durationSeconds: 2,
      onProgress: (percent) => void progress.push(percent),
    })
    expect(progress.at(-1)).toBe(100)
    expect(progress).toEqual([...new Set(progress)].sort((a, b) => a - b))
  })

  it('rejects with the end of stderr when ffmpeg fails', async () => {
    const failure = runFfmpeg(['-i', '/nonexistent/pet.jpg', '-f', 'null', '-'])
    await expect(failure).rejects.toBeInstanceOf(FfmpegError)
    await expect(failure).rejects.toThrow(/No such file or directory/)
  })
})

/** PIDs of running processes whose command line contains `text` (Linux /proc). */
async function processesMentioning(text: string): Promise<string[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name))
  const matches = await Promise.all(
    pids.map(async (pid) => {
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
      return cmdline.includes(text) ? pid : null
    }),
  )
  return matches.filter((pid) => pid !== null)
}

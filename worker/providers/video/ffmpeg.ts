import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'

const STDERR_TAIL_CHARS = 2000

/** FFMPEG_PATH if set, else the binary of @ffmpeg-installer/ffmpeg, else `ffmpeg` on PATH. */
export function resolveFfmpegPath(env: Record<string, string | undefined> = process.env): string {
  return env.FFMPEG_PATH || installedFfmpegPath() || 'ffmpeg'
}

function installedFfmpegPath(): string | undefined {
  try {
    // Loaded lazily: the package throws at load time when its platform binary is missing, and
    // that must fall back to PATH instead of crashing the worker.
    const installer = createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }
    return installer.path
  } catch {
    return undefined
  }
}

export class FfmpegError extends Error {
  readonly exitCode: number | null
  /** The end of ffmpeg's stderr, where it explains what went wrong. */
  readonly stderrTail: string

  constructor(message: string, exitCode: number | null, stderrTail: string, cause?: unknown) {
    super(stderrTail ? `${message}: ${stderrTail}` : message, { cause })
    this.name = 'FfmpegError'
    this.exitCode = exitCode
    this.stderrTail = stderrTail
  }
}

export interface RunFfmpegOptions {
  /** Aborting kills ffmpeg; the promise then rejects with the signal's reason once it has exited. */
  signal?: AbortSignal
  /** Receives 0..100 as ffmpeg advances; needs durationSeconds. Best effort: rejections are ignored. */
  onProgress?: (percent: number) => void | Promise<void>
  /** Duration of the output, to turn ffmpeg's output time into a percentage. */
  durationSeconds?: number
}

/** Runs ffmpeg with `args` (inputs, filters, outputs); resolves when it exits successfully. */
export function runFfmpeg(args: readonly string[], options: RunFfmpegOptions = {}): Promise<void> {
  const { signal, onProgress, durationSeconds } = options
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)

    const child = spawn(
      resolveFfmpegPath(),
      ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', '-progress', 'pipe:1', ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    const killOnAbort = () => child.kill('SIGKILL')
    signal?.addEventListener('abort', killOnAbort, { once: true })

    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS)
    })
    if (onProgress && durationSeconds) {
      child.stdout.setEncoding('utf8').on('data', progressParser(durationSeconds, onProgress))
    } else {
      child.stdout.resume()
    }

    child.on('error', (error) => {
      signal?.removeEventListener('abort', killOnAbort)
      reject(new FfmpegError(`Could not start ffmpeg (${error.message})`, null, '', error))
    })
    child.on('close', (exitCode, killSignal) => {
      signal?.removeEventListener('abort', killOnAbort)
      if (signal?.aborted) return reject(signal.reason)
      if (exitCode === 0) return resolve()
      const how = killSignal ? `was killed by ${killSignal}` : `exited with code ${exitCode}`
      reject(new FfmpegError(`ffmpeg ${how}`, exitCode, stderr.trim()))
    })
  })
}

/**
 * Parses `-progress` output: blocks of key=value lines. `out_time_ms` is in microseconds despite its
 * name (an ffmpeg quirk kept for compatibility); unlike `out_time_us`, every version prints it.
 */
function progressParser(
  durationSeconds: number,
  onProgress: (percent: number) => void | Promise<void>,
): (chunk: string) => void {
  let pending = ''
  let reported = -1
  const report = (percent: number) => {
    if (percent <= reported) return
    reported = percent
    Promise.resolve(onProgress(percent)).catch(() => undefined)
  }
  return (chunk) => {
    const lines = (pending + chunk).split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) {
      const [key, value] = line.trim().split('=')
      if (key === 'progress' && value === 'end') report(100)
      if (key !== 'out_time_ms') continue
      const micros = Number(value)
      if (!Number.isFinite(micros)) continue
      report(Math.min(99, Math.max(0, Math.floor(micros / (durationSeconds * 10_000)))))
    }
  }
}

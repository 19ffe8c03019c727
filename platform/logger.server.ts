/**
 * One logger for the web and the worker: pino, JSON lines on stdout (Fly ships them as they are),
 * pretty-printed in development when the pino-pretty dev dependency is there. Every line written
 * while a request or a job is handled carries its request id (`reqId`).
 *
 * initLogging also routes console.* through it, so the modules that log with console (and
 * libraries) write the same JSON lines. Every line is written with the URLs in it cut to their
 * paths (platform/url-redaction.ts), so no token in a link reaches the logs.
 */
import { createRequire } from 'node:module'
import { format } from 'node:util'
import { Logger } from 'graphile-worker'
import pino from 'pino'
import { currentRequestContext } from './request-context.server.ts'
import { redactUrlsIn } from './url-redaction.ts'

export type AppLogger = pino.Logger

const levels = new Set(['debug', 'info', 'warn', 'error'])

/**
 * Object keys that must never be printed, should anyone log a body or headers. (Not `code`: errors
 * carry theirs, ECONNREFUSED and the like, and those must stay readable.)
 */
const secretPaths = [
  'password',
  '*.password',
  'confirmPassword',
  '*.confirmPassword',
  'token',
  '*.token',
  'verificationCode',
  '*.verificationCode',
  'headers.cookie',
  'headers.authorization',
  'headers["x-auth-token"]',
  'headers["auth-token"]',
]

let processLogger: AppLogger | undefined

function createLogger(processName: string, destination?: pino.DestinationStream): AppLogger {
  const level = levels.has(process.env.LOG_LEVEL ?? '') ? process.env.LOG_LEVEL : 'info'
  return pino(
    {
      level,
      base: { process: processName },
      mixin() {
        const context = currentRequestContext()
        return context ? { reqId: context.requestId } : {}
      },
      redact: { paths: secretPaths, censor: '[redacted]' },
      // Every line, whatever logged it (requests, errors and their stacks, jobs, console.*): URLs
      // lose their query strings and fragments, where links carry tokens and codes.
      hooks: { streamWrite: redactUrlsIn },
    },
    destination ?? defaultDestination(),
  )
}

/** JSON lines on stdout, a turn of the event loop's written together (`writtenPerTurn`). */
function defaultDestination(): pino.DestinationStream {
  if ((process.env.NODE_ENV ?? 'development') === 'development') {
    try {
      const pretty = createRequire(import.meta.url)('pino-pretty') as (options: object) => pino.DestinationStream
      return pretty({ sync: true, singleLine: true, ignore: 'pid,hostname', translateTime: 'HH:MM:ss.l' })
    } catch {
      // Not installed (a production image without dev dependencies): JSON lines.
    }
  }
  return writtenPerTurn(pino.destination({ dest: 1, sync: true }))
}

/**
 * The lines logged during one turn of the event loop, written together at its end, synchronously: a
 * busy web process makes one write for several requests rather than one each, which was a twentieth
 * of its time under load (decision 0045). What is waiting when the process exits (process.exit, a
 * signal's handler, an uncaught error) is written then, so no line is lost.
 */
function writtenPerTurn(destination: pino.DestinationStream): pino.DestinationStream {
  let waiting = ''
  const write = () => {
    const lines = waiting
    waiting = ''
    if (lines) destination.write(lines)
  }
  process.on('exit', write)
  return {
    write(line: string) {
      if (!waiting) setImmediate(write)
      waiting += line
    },
  }
}

export function getLogger(): AppLogger {
  return (processLogger ??= createLogger(process.title))
}

/** Makes `processName` ('web', 'worker') the logger of this process and sends console.* to it. */
export function initLogging(processName: string, destination?: pino.DestinationStream): AppLogger {
  const logger = createLogger(processName, destination)
  processLogger = logger
  const forward =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]) => {
      const last = args.at(-1)
      if (last instanceof Error) logger[level]({ err: last }, format(...args.slice(0, -1)))
      else logger[level](format(...args))
    }
  console.debug = forward('debug')
  console.log = console.info = forward('info')
  console.warn = forward('warn')
  console.error = forward('error')
  return logger
}

/** graphile-worker's own logger, trimmed: its info lines drown the app's at start-up. */
export const graphileLogger = new Logger((scope) => (level, message) => {
  if (level === 'debug') return
  if (level === 'info' && !scope.taskIdentifier) return
  const fields = scope.taskIdentifier ? { job: scope.taskIdentifier, jobId: scope.jobId } : {}
  const logger = getLogger()
  if (level === 'error') logger.error(fields, message)
  else if (level === 'warning') logger.warn(fields, message)
  else logger.info(fields, message)
})

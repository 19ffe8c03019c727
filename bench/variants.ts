// Issue 31's figures for versions per run: (a) a 4-version run end to end (submission to completed,
// through the web and the real worker) with the instant provider, p50 against a 1-version run;
// (b) provider calls per version: OpenAI makes every version in one call (n), Gemini one call each;
// (c) the photo check's local time on a 12-megapixel JPEG (bench/photo-check.ts, also run alone).
import type { DB } from '#platform/db.server.ts'
import { startGeminiFake } from '#tests/fakes/gemini.ts'
import { startOpenAiFake } from '#tests/fakes/openai.ts'
import { benchPhotoCheck } from './photo-check.ts'
import { postGeneration, signedInUser, smallPhoto, waitUntilFinished, withDataDir } from './generation.ts'
import { percentile, round, startProcess } from './lib.ts'

type BenchDatabase = { db: DB; url: string }

const RUNS = 20

export async function benchVariants({ db, url }: BenchDatabase) {
  return withDataDir(async (dataDir) => {
    const env = { DATABASE_URL: url, DATA_DIR: dataDir }
    const web = await startProcess('server/index.ts', env, 'is running at')
    try {
      const { token } = await signedInUser(db, 1_000_000)
      const photo = await smallPhoto()
      const run = async (variants: number) => {
        const started = performance.now()
        const { status, body } = await postGeneration(web.url, token, photo, { variants: String(variants) })
        if (status !== 200 || !body.taskId) throw new Error(`submission failed (${status}): ${body.message}`)
        await waitUntilFinished(db, [body.taskId])
        return performance.now() - started
      }

      // The instant provider is refused in production; the worker runs as in development.
      const instant = await startProcess(
        'worker/index.ts',
        { ...env, NODE_ENV: 'development', IMAGE_PROVIDER: 'instant' },
        '[worker] started',
      )
      const times: Record<number, number[]> = { 1: [], 4: [] }
      try {
        await run(1) // warm-up
        for (let round = 0; round < RUNS; round++) {
          times[1].push(await run(1))
          times[4].push(await run(4))
        }
      } finally {
        await instant.stop()
      }
      const p50 = (variants: number) =>
        percentile(
          [...times[variants]].sort((a, b) => a - b),
          50,
        )

      const openai = await startOpenAiFake()
      const viaOpenAi = await startProcess(
        'worker/index.ts',
        { ...env, IMAGE_PROVIDER: 'openai', OPENAI_API_KEY: openai.apiKey, OPENAI_BASE_URL: openai.baseUrl },
        '[worker] started',
      )
      try {
        await run(4)
      } finally {
        await viaOpenAi.stop()
        await openai.close()
      }
      const gemini = await startGeminiFake()
      const viaGemini = await startProcess(
        'worker/index.ts',
        { ...env, IMAGE_PROVIDER: 'gemini', GEMINI_API_KEY: gemini.apiKey, GEMINI_BASE_URL: gemini.baseUrl },
        '[worker] started',
      )
      try {
        await run(4)
      } finally {
        await viaGemini.stop()
        await gemini.close()
      }

      return {
        '(a) 1-version run end to end p50 ms (instant provider)': round(p50(1), 0),
        '(a) 4-version run end to end p50 ms (instant provider)': round(p50(4), 0),
        '(a) 4 versions / 1 version, p50': round(p50(4) / p50(1), 2),
        '(b) OpenAI calls for a 4-version run (target 1)': openai.requests.length,
        '(b) Gemini calls for a 4-version run (target 4)': gemini.requests.length,
        ...Object.fromEntries(
          Object.entries(await benchPhotoCheck()).map(([name, value]) => [`(c) photo check: ${name}`, value]),
        ),
      }
    } finally {
      await web.stop()
    }
  })
}

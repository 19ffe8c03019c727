/**
 * The key-and-model check of each configured remote provider: does the key work, and does the
 * model exist (a retired model is the usual reason every task would fail)? One GET per model:
 * OpenAI `GET /v1/models/{model}`, Google `GET /v1beta/models/{model}`. Used by
 * `npm run providers:check` and by the worker at start-up; each result is kept in provider_checks
 * for the operator's status page.
 */
import { recordProviderCheck } from '#domain/generation/provider-checks.server.ts'
import type { DB } from '#platform/db.server.ts'
import type { ImageEnv, VideoEnv } from './from-env.ts'
import type { WorkerEnv } from '#worker/env.ts'
import { errorForAnswer, requestJson } from './http.ts'
import { ProviderError } from './types.ts'

export interface ProviderCheckResult {
  provider: string
  model: string
  ok: boolean
  detail: string
}

type CheckEnv = ImageEnv & VideoEnv & Pick<WorkerEnv, 'IMAGE_PROVIDERS'>

interface ModelLookup {
  provider: string
  service: string
  model: string
  url: string
  headers: Record<string, string>
  apiKey: string
}

const CHECK_TIMEOUT_MS = 15_000

/** Checks every remote provider the environment configures (none for the local ones). */
function checkProviders(env: CheckEnv): Promise<ProviderCheckResult[]> {
  return Promise.all(lookups(env).map(checkModel))
}

/** Checks, records each result, and prints one line per provider: error level for a failure. */
export async function checkAndRecord(db: DB, env: CheckEnv): Promise<ProviderCheckResult[]> {
  const results = await checkProviders(env)
  for (const result of results) {
    await recordProviderCheck(db, result)
    const line = `[providers] ${result.provider} (${result.model}): ${result.ok ? 'ok' : 'FAILED'}, ${result.detail}`
    if (result.ok) console.log(line)
    else console.error(line)
  }
  return results
}

function lookups(env: CheckEnv): ModelLookup[] {
  const google = (provider: string, model: string): ModelLookup => ({
    provider,
    service: provider === 'gemini' ? 'Gemini' : 'Veo',
    model,
    url: `${env.GEMINI_BASE_URL.replace(/\/+$/, '')}/v1beta/models/${encodeURIComponent(model)}`,
    headers: { 'x-goog-api-key': env.GEMINI_API_KEY ?? '' },
    apiKey: env.GEMINI_API_KEY ?? '',
  })
  const list: ModelLookup[] = []
  if (env.IMAGE_PROVIDERS.includes('openai')) {
    list.push({
      provider: 'openai',
      service: 'OpenAI',
      model: env.OPENAI_IMAGE_MODEL,
      url: `${env.OPENAI_BASE_URL.replace(/\/+$/, '')}/models/${encodeURIComponent(env.OPENAI_IMAGE_MODEL)}`,
      headers: { authorization: `Bearer ${env.OPENAI_API_KEY ?? ''}` },
      apiKey: env.OPENAI_API_KEY ?? '',
    })
  }
  if (env.IMAGE_PROVIDERS.includes('gemini')) list.push(google('gemini', env.GEMINI_IMAGE_MODEL))
  if (env.VIDEO_PROVIDER === 'veo') list.push(google('veo', env.VEO_MODEL), google('veo-fast', env.VEO_FAST_MODEL))
  return list
}

async function checkModel(lookup: ModelLookup): Promise<ProviderCheckResult> {
  const result = { provider: lookup.provider, model: lookup.model }
  const http = {
    service: lookup.service,
    timeoutMs: CHECK_TIMEOUT_MS,
    signal: new AbortController().signal,
    secrets: [lookup.apiKey],
  }
  try {
    const answer = await requestJson(lookup.url, { headers: lookup.headers }, http)
    if (answer.ok) return { ...result, ok: true, detail: 'the key works and the model exists' }
    if (answer.status === 404) {
      return { ...result, ok: false, detail: `the model ${lookup.model} does not exist (HTTP 404): set a current one` }
    }
    return { ...result, ok: false, detail: errorForAnswer(answer, http).message }
  } catch (error) {
    return { ...result, ok: false, detail: error instanceof ProviderError ? error.message : String(error) }
  }
}

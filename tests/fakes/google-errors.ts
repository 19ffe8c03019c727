/**
 * The error bodies Google's Gemini API answers, as its documentation and client libraries show them:
 * `{ error: { code, message, status, details } }`, with google.rpc detail messages (ErrorInfo for a
 * bad key, QuotaFailure and RetryInfo for RESOURCE_EXHAUSTED). Shared by the Gemini and Veo fakes.
 */
import type { ServerResponse } from 'node:http'
import { sendJson } from './http-fake.ts'

export function sendGoogleError(
  response: ServerResponse,
  code: number,
  message: string,
  status: string,
  details: unknown[] = [],
) {
  sendJson(response, code, { error: { code, message, status, ...(details.length > 0 ? { details } : {}) } })
}

/** A missing or wrong key: 400 INVALID_ARGUMENT with the ErrorInfo reason API_KEY_INVALID. */
export function sendApiKeyInvalid(response: ServerResponse) {
  sendGoogleError(response, 400, 'API key not valid. Please pass a valid API key.', 'INVALID_ARGUMENT', [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'API_KEY_INVALID',
      domain: 'googleapis.com',
      metadata: { service: 'generativelanguage.googleapis.com' },
    },
  ])
}

export function sendModelNotFound(response: ServerResponse, model: string, method: string) {
  sendGoogleError(
    response,
    404,
    `models/${model} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`,
    'NOT_FOUND',
  )
}

/**
 * 429 RESOURCE_EXHAUSTED. A per-minute quota carries RetryInfo (when to try again); a per-day quota
 * is exhausted until tomorrow and names its PerDay quota in QuotaFailure.
 */
export function sendResourceExhausted(
  response: ServerResponse,
  model: string,
  quota: { perDay: boolean; retryDelaySeconds?: number },
) {
  const quotaId = quota.perDay
    ? 'GenerateRequestsPerDayPerProjectPerModel'
    : 'GenerateRequestsPerMinutePerProjectPerModel'
  const details: unknown[] = [
    {
      '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
      violations: [
        {
          quotaMetric: 'generativelanguage.googleapis.com/generate_requests_per_model',
          quotaId,
          quotaDimensions: { location: 'global', model },
          quotaValue: '10',
        },
      ],
    },
    {
      '@type': 'type.googleapis.com/google.rpc.Help',
      links: [
        { description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' },
      ],
    },
  ]
  if (!quota.perDay) {
    details.push({
      '@type': 'type.googleapis.com/google.rpc.RetryInfo',
      retryDelay: `${quota.retryDelaySeconds ?? 1}s`,
    })
  }
  sendGoogleError(
    response,
    429,
    'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
    'RESOURCE_EXHAUSTED',
    details,
  )
}

/** GET /v1beta/models/{model}: the Model resource. */
export function modelResource(model: string, methods: string[]) {
  return {
    name: `models/${model}`,
    version: '001',
    displayName: model,
    description: `Fake of ${model}`,
    inputTokenLimit: 65536,
    outputTokenLimit: 32768,
    supportedGenerationMethods: methods,
  }
}

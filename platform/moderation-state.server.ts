/**
 * Whether this process moderates free text and photos before paying (domain/moderation/): only
 * with an OpenAI key. Said once at start-up and on /system-status, never per request.
 */
import { getEnv } from './env.server.ts'

export const MODERATION_MODEL = 'omni-moderation-latest'

export function moderationState(): { on: boolean; summary: string } {
  return getEnv().OPENAI_API_KEY
    ? { on: true, summary: `on: prompts and photos go through OpenAI ${MODERATION_MODEL} before paying` }
    : { on: false, summary: 'off (no OPENAI_API_KEY): prompts and photos are not moderated' }
}

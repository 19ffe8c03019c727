import type { VideoOperationProvider, VideoProvider } from '../types.ts'
import { createLocalVideoProvider } from './local.ts'
import { createVeoVideoProvider } from './veo.ts'
import type { VeoConfig } from './veo.ts'

/**
 * Which video provider to run and, for Veo, how to reach it. From the environment:
 * provider = VIDEO_PROVIDER, apiKey = GEMINI_API_KEY, baseUrl = GEMINI_BASE_URL,
 * model = VEO_MODEL, fastModel = VEO_FAST_MODEL.
 */
export interface VideoProviderConfig extends Partial<VeoConfig> {
  provider: 'local' | 'veo'
}

export function createVideoProvider(config: VideoProviderConfig): VideoProvider | VideoOperationProvider {
  const { provider, apiKey, ...veo } = config
  if (provider === 'local') return createLocalVideoProvider()
  if (!apiKey) throw new Error('VIDEO_PROVIDER=veo needs GEMINI_API_KEY to be set.')
  return createVeoVideoProvider({ ...veo, apiKey })
}

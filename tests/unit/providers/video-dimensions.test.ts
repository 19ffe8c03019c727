import { effectiveResolution, videoSize } from '#domain/generation/video-dimensions.ts'
import { createVideoProvider } from '#worker/providers/video/index.ts'
import { wrap } from '#worker/providers/video/text-scene.ts'

describe('video dimensions', () => {
  it('maps aspect ratio and resolution to pixels', () => {
    expect(videoSize('16:9', '720p')).toEqual({ width: 1280, height: 720 })
    expect(videoSize('16:9', '1280p')).toEqual({ width: 1920, height: 1080 })
    expect(videoSize('9:16', '720p')).toEqual({ width: 720, height: 1280 })
  })

  it('renders portrait at 720p even when Higher was asked for', () => {
    expect(videoSize('9:16', '1280p')).toEqual({ width: 720, height: 1280 })
    expect(effectiveResolution('9:16', '1280p')).toBe('720p')
    expect(effectiveResolution('16:9', '1280p')).toBe('1280p')
    expect(effectiveResolution('16:9', '720p')).toBe('720p')
  })
})

describe('scene caption wrapping', () => {
  it('wraps words into lines no longer than the limit', () => {
    expect(wrap('a golden dog surfing at the beach', 12, 3)).toEqual(['a golden dog', 'surfing at', 'the beach'])
  })

  it('cuts overflowing text with an ellipsis', () => {
    const lines = wrap('one two three four five six seven eight nine ten', 10, 2)
    expect(lines).toHaveLength(2)
    expect(lines[1].endsWith('…')).toBe(true)
    expect(lines.every((line) => line.length <= 10)).toBe(true)
    expect(wrap('supercalifragilistic', 8, 2)).toEqual(['superca…'])
  })
})

describe('createVideoProvider', () => {
  it('chooses the provider named in the config', () => {
    expect(createVideoProvider({ provider: 'local' }).name).toBe('local')
    expect(createVideoProvider({ provider: 'veo', apiKey: 'key' }).name).toBe('veo')
  })

  it('refuses Veo without an API key, naming the variable', () => {
    expect(() => createVideoProvider({ provider: 'veo' })).toThrow(/GEMINI_API_KEY/)
  })
})

/**
 * The photo check's vision call to Gemini: generateContent with the photo as an inline part and
 * structured output (`generationConfig.responseMimeType: 'application/json'` with
 * `responseJsonSchema`); the answer is the JSON text in `candidates[0].content.parts[0].text`.
 */
import { postJson } from '#platform/json-call.server.ts'
import { parseAnswerText } from './vision-request.server.ts'
import { VISION_PROMPT, visionAnswerJsonSchema, type VisionAnswer } from './vision-answer.ts'

interface GeminiVisionConfig {
  apiKey: string
  baseUrl: string
  model: string
  timeoutMs: number
}

export async function askGemini(jpeg: Buffer, config: GeminiVisionConfig): Promise<VisionAnswer> {
  const body = await postJson(
    `${config.baseUrl.replace(/\/$/, '')}/v1beta/models/${encodeURIComponent(config.model)}:generateContent`,
    { 'x-goog-api-key': config.apiKey },
    {
      contents: [
        {
          role: 'user',
          parts: [{ text: VISION_PROMPT }, { inlineData: { mimeType: 'image/jpeg', data: jpeg.toString('base64') } }],
        },
      ],
      generationConfig: { responseMimeType: 'application/json', responseJsonSchema: visionAnswerJsonSchema },
    },
    config.timeoutMs,
  )
  const parts = (body as { candidates?: { content?: { parts?: { text?: unknown }[] } }[] }).candidates?.[0]?.content
    ?.parts
  return parseAnswerText(Array.isArray(parts) ? parts[0]?.text : undefined)
}

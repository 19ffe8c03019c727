/**
 * The photo check's vision call to OpenAI: Chat Completions with an image part (a data URL, low
 * detail: a few dozen input tokens) and Structured Outputs (`response_format: { type: 'json_schema',
 * json_schema: { name, strict: true, schema } }`); the answer is the JSON string in
 * `choices[0].message.content`, or `message.refusal` when the model declines.
 */
import { postJson, SkippedCall } from '#platform/json-call.server.ts'
import { parseAnswerText } from './vision-request.server.ts'
import { VISION_PROMPT, visionAnswerJsonSchema, type VisionAnswer } from './vision-answer.ts'

interface OpenAiVisionConfig {
  apiKey: string
  baseUrl: string
  model: string
  timeoutMs: number
}

export async function askOpenAi(jpeg: Buffer, config: OpenAiVisionConfig): Promise<VisionAnswer> {
  const body = await postJson(
    `${config.baseUrl.replace(/\/$/, '')}/chat/completions`,
    { authorization: `Bearer ${config.apiKey}` },
    {
      model: config.model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: VISION_PROMPT },
            {
              type: 'image_url',
              image_url: { url: `data:image/jpeg;base64,${jpeg.toString('base64')}`, detail: 'low' },
            },
          ],
        },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'pet_photo_check', strict: true, schema: visionAnswerJsonSchema },
      },
    },
    config.timeoutMs,
  )
  const message = (body as { choices?: { message?: { content?: unknown; refusal?: unknown } }[] }).choices?.[0]?.message
  if (typeof message?.refusal === 'string') throw new SkippedCall('malformed', `the model refused: ${message.refusal}`)
  return parseAnswerText(message?.content)
}

/**
 * What an answer of OpenAI's moderation endpoint (POST /v1/moderations, omni-moderation-latest)
 * means for one input: the categories OpenAI flagged (its own thresholds: `categories[name]` is
 * true), for a photo only those it scores on images (`category_applied_input_types[name]` names
 * 'image'), and the plain words the refusal uses for them.
 */
import { z } from 'zod'

export const moderationAnswerSchema = z.object({
  results: z
    .array(
      z.object({
        flagged: z.boolean(),
        categories: z.record(z.boolean().nullable()),
        category_applied_input_types: z.record(z.array(z.string())).optional(),
      }),
    )
    .min(1),
})

export type ModerationAnswer = z.infer<typeof moderationAnswerSchema>

/** The categories in words a user reads; a category OpenAI adds later reads as its own name. */
const CATEGORY_WORDS: Record<string, string> = {
  harassment: 'harassment',
  'harassment/threatening': 'threats',
  hate: 'hate',
  'hate/threatening': 'hateful threats',
  illicit: 'illegal activity',
  'illicit/violent': 'violent wrongdoing',
  'self-harm': 'self-harm',
  'self-harm/instructions': 'self-harm',
  'self-harm/intent': 'self-harm',
  sexual: 'sexual content',
  'sexual/minors': 'sexual content involving minors',
  violence: 'violence',
  'violence/graphic': 'graphic violence',
}

/** The flagged categories of one result (one per input string), in the answer's order; [] when nothing was flagged. */
export function flaggedCategories(answer: ModerationAnswer, input: 'text' | 'image', index = 0): string[] {
  const result = answer.results[index]
  if (!result?.flagged) return []
  return Object.entries(result.categories)
    .filter(([, flagged]) => flagged === true)
    .map(([category]) => category)
    .filter((category) => {
      const applied = result.category_applied_input_types?.[category]
      // An answer without the applied types is a text-only model's: it scored the text.
      return applied ? applied.includes(input) : input === 'text'
    })
}

/** "violence", "violence and sexual content", "hate, threats and violence". */
export function categoryWords(categories: string[]): string {
  const words = [...new Set(categories.map((category) => CATEGORY_WORDS[category] ?? category.replace(/[/_-]/g, ' ')))]
  if (words.length <= 1) return words.join('')
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`
}

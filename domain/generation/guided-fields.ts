/**
 * The guided fields of the generator's Guide mode (spec section 2, /generate), listed once: the
 * form's schema (prompt.ts), the prompt, an image task's stored params and a gallery template's
 * options all derive from this list. Free of zod, so the public gallery's code can import it.
 */

export const GUIDED_FIELD_MAX_LENGTH = 200

/** The personification choice ('yes' or 'no'), then the free-text fields, in the form's order. */
export const GUIDED_FIELDS = [
  'personification',
  'clothingTop',
  'accessories',
  'clothingPants',
  'clothingShoes',
  'action',
  'background',
] as const

export type GuidedField = (typeof GUIDED_FIELDS)[number]

/** One value for each guided field, in the list's order (a field's schema, a template's stored text...). */
export const guidedRecord = <V>(value: (field: GuidedField) => V) =>
  Object.fromEntries(GUIDED_FIELDS.map((field) => [field, value(field)])) as Record<GuidedField, V>

/** The guided fields of a form or an upload, without its other fields. */
export const pickGuided = <V extends Record<GuidedField, unknown>>(values: V) =>
  guidedRecord((field) => values[field]) as Pick<V, GuidedField>

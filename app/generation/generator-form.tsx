import { getFormProps, useForm, type DefaultValue, type FormMetadata } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { useActionData } from '@remix-run/react'
import type { ReactNode } from 'react'
import type { input, output, ZodTypeAny } from 'zod'
import { FormError } from '#app/components/form-errors.tsx'
import type { GenerationActionData } from '#app/generation/generation-forms.server.ts'
import { useGenerationRequest, type Generator, type TaskFollow } from '#app/generation/generation-request.ts'
import type { SubmittedTask } from '#app/generation/task-list.ts'

interface GeneratorFormOptions<Schema extends ZodTypeAny> {
  id: string
  schema: Schema
  defaultValue: DefaultValue<input<Schema>>
  /** What the Today's Tasks sidebar shows of a submitted task. */
  task: Omit<SubmittedTask, 'id'>
}

/**
 * A generator's conform form: validated in the browser, then sent to the page's action, by the
 * browser itself without JavaScript, else through a fetcher. Either answer's refusals show on the form.
 */
export function useGeneratorForm<Schema extends ZodTypeAny>(
  generator: Generator,
  follow: TaskFollow,
  { id, schema, defaultValue, task }: GeneratorFormOptions<Schema>,
) {
  const actionData = useActionData<GenerationActionData>()
  const request = useGenerationRequest(generator, follow, task)
  const answer = request.answer ?? actionData
  const [form, fields] = useForm<input<Schema>, output<Schema>>({
    id,
    lastResult: answer?.result,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onInput',
    defaultValue,
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
    onSubmit(event, { formData }) {
      event.preventDefault()
      request.send(formData)
    },
  })
  return { form, fields, submitting: request.submitting, needPurchase: Boolean(answer?.needPurchase) }
}

interface GeneratorFormProps<Schema extends Record<string, unknown>> {
  form: FormMetadata<Schema>
  /** A lack of credits: the shell's purchase dialog says it (GeneratorShell), not the form. */
  needPurchase: boolean
  children: ReactNode
}

/** The multipart form, posted to the page's action (through a fetcher once JavaScript runs). */
export function GeneratorForm<Schema extends Record<string, unknown>>({
  form,
  needPurchase,
  children,
}: GeneratorFormProps<Schema>) {
  return (
    <form method="post" encType="multipart/form-data" {...getFormProps(form)}>
      <FormError errors={needPurchase ? null : form.errors} id={form.errorId} />
      {children}
    </form>
  )
}

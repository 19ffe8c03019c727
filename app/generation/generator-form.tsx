import { getFormProps, useForm, type DefaultValue, type FormMetadata } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { useActionData } from '@remix-run/react'
import type { ReactNode } from 'react'
import type { input, output, ZodTypeAny } from 'zod'
import { FormError } from '#app/components/text-field.tsx'
import type { GenerationActionData } from '#app/generation/generation-forms.server.ts'
import { useGenerationRequest, type Generator, type TaskFollow } from '#app/generation/generation-request.ts'
import type { SubmittedTask } from '#app/generation/task-client.ts'

interface GeneratorFormOptions<Schema extends ZodTypeAny> {
  id: string
  schema: Schema
  defaultValue: DefaultValue<input<Schema>>
  /** What the Today's Tasks sidebar shows of a submitted task. */
  task: Omit<SubmittedTask, 'id'>
}

/**
 * A generator's conform form: validated in the browser, then sent through the API. The action's
 * answer to a submission without JavaScript comes back as its result.
 */
export function useGeneratorForm<Schema extends ZodTypeAny>(
  generator: Generator,
  follow: TaskFollow,
  { id, schema, defaultValue, task }: GeneratorFormOptions<Schema>,
) {
  const actionData = useActionData<GenerationActionData>()
  const request = useGenerationRequest(generator, follow)
  const [form, fields] = useForm<input<Schema>, output<Schema>>({
    id,
    lastResult: actionData?.result,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onInput',
    defaultValue,
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
    onSubmit(event, { formData }) {
      event.preventDefault()
      void request.send(formData, task)
    },
  })
  return { form, fields, submitting: request.submitting }
}

interface GeneratorFormProps<Schema extends Record<string, unknown>> {
  form: FormMetadata<Schema>
  children: ReactNode
}

/**
 * The multipart form, which posts to the page's action until JavaScript takes over. A lack of
 * credits comes back from the action as the form's error, which the shell's purchase dialog shows
 * instead (GeneratorShell).
 */
export function GeneratorForm<Schema extends Record<string, unknown>>({ form, children }: GeneratorFormProps<Schema>) {
  const needPurchase = useActionData<GenerationActionData>()?.needPurchase
  return (
    <form method="post" encType="multipart/form-data" {...getFormProps(form)}>
      <FormError errors={needPurchase ? null : form.errors} id={form.errorId} />
      {children}
    </form>
  )
}

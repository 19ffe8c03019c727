import { getFormProps, getInputProps, getSelectProps, getTextareaProps, useForm } from '@conform-to/react'
import type { SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json } from '@remix-run/node'
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import type { z } from 'zod'
import { AccessDenied } from '#app/components/access-denied.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FieldError } from '#app/components/form-errors.tsx'
import { newStyleSchema, templateUploadSchema } from '#domain/gallery/gallery-forms.ts'
import type { StyleJson } from '#domain/gallery/template-json.ts'
import { createTemplateFromUpload } from '#domain/gallery/templates.server.ts'
import { createGalleryStyle, listStyles } from '#domain/gallery/styles.server.ts'
import { requirePermission } from '#domain/permissions/permissions.server.ts'
import type { User } from '#platform/db-schema.ts'
import { getDb } from '#platform/db.server.ts'
import { formErrorResponse, type FormActionData } from '#app/utils/form-errors.server.ts'
import { readMultipartForm } from '#app/utils/multipart.server.ts'
import { seo } from '#app/document/seo.ts'
import { getStorage } from '#platform/storage.server.ts'
import { ACCEPTED_IMAGES } from '#app/utils/accepted-images.ts'

export const meta: MetaFunction = () =>
  seo({ title: 'Update Case', description: 'Upload gallery templates and create style categories.' })

const TEMPLATE_FORM = 'template'
const STYLE_FORM = 'style'

/** Guests go to /login; signed-in users who are not admins get a 403, shown as Access Denied. */
export async function loader({ request }: LoaderFunctionArgs) {
  await requirePermission(request, 'manageGallery')
  return json({ styles: await listStyles(getDb()) })
}

export async function action({ request }: ActionFunctionArgs) {
  const admin = await requirePermission(request, 'manageGallery')
  let formData: FormData
  try {
    // Both forms are multipart, so one reader (with the upload limits) serves them.
    formData = await readMultipartForm(request)
  } catch (error) {
    return formErrorResponse(error, undefined, { form: TEMPLATE_FORM })
  }
  return formData.get('intent') === STYLE_FORM ? createStyle(formData) : uploadTemplate(formData, admin)
}

async function uploadTemplate(formData: FormData, admin: User) {
  const submission = parseWithZod(formData, { schema: templateUploadSchema })
  if (submission.status !== 'success') {
    return json<FormActionData>({ form: TEMPLATE_FORM, result: submission.reply() }, { status: 400 })
  }
  try {
    const image = await createTemplateFromUpload(getDb(), getStorage(), submission.value, admin.id)
    return json<FormActionData>({
      form: TEMPLATE_FORM,
      result: submission.reply({ resetForm: true }),
      message: `Template "${image.name}" uploaded successfully.`,
    })
  } catch (error) {
    return formErrorResponse(error, submission, { form: TEMPLATE_FORM })
  }
}

async function createStyle(formData: FormData) {
  const submission = parseWithZod(formData, { schema: newStyleSchema })
  if (submission.status !== 'success') {
    return json<FormActionData>({ form: STYLE_FORM, result: submission.reply() }, { status: 400 })
  }
  try {
    const style = await createGalleryStyle(getDb(), submission.value)
    return json<FormActionData>({
      form: STYLE_FORM,
      result: submission.reply({ resetForm: true }),
      message: `Style "${style.label}" (${style.value}) created.`,
    })
  } catch (error) {
    return formErrorResponse(error, submission, { form: STYLE_FORM })
  }
}

export default function UpdateCase() {
  const { styles } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const outcomeOf = (form: string) => (actionData?.form === form ? actionData : undefined)
  return (
    <section className="update-case">
      <h1>Update Case</h1>
      <TemplateForm styles={styles} outcome={outcomeOf(TEMPLATE_FORM)} />
      <StyleForm styles={styles} outcome={outcomeOf(STYLE_FORM)} />
    </section>
  )
}

type Outcome = { result: SubmissionResult<string[]>; message?: string } | undefined

function FormMessages({ outcome, errors }: { outcome: Outcome; errors?: string[] }) {
  return (
    <>
      {outcome?.message ? (
        <p className="form-success" role="status">
          {outcome.message}
        </p>
      ) : null}
      {errors?.length ? (
        <p className="form-error" role="alert">
          {errors.join(' ')}
        </p>
      ) : null}
    </>
  )
}

function useSubmitting(intent: string) {
  const navigation = useNavigation()
  return navigation.state === 'submitting' && navigation.formData?.get('intent') === intent
}

const GUIDED_FIELDS = [
  ['clothingTop', 'Clothing top'],
  ['accessories', 'Accessories'],
  ['clothingPants', 'Clothing pants'],
  ['clothingShoes', 'Clothing shoes'],
  ['action', 'Action'],
  ['background', 'Background'],
] as const

function TemplateForm({ styles, outcome }: { styles: StyleJson[]; outcome: Outcome }) {
  const submitting = useSubmitting(TEMPLATE_FORM)
  const [form, fields] = useForm<z.input<typeof templateUploadSchema>>({
    id: TEMPLATE_FORM,
    lastResult: outcome?.result,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: templateUploadSchema }),
  })
  return (
    <Form method="post" encType="multipart/form-data" className="card form-card" {...getFormProps(form)}>
      <h2>Upload a template</h2>
      <FormMessages outcome={outcome} errors={form.errors} />
      <input type="hidden" name="intent" value={TEMPLATE_FORM} />
      <div className="field">
        <label htmlFor={fields.image.id}>Template image</label>
        <input {...getInputProps(fields.image, { type: 'file' })} accept={ACCEPTED_IMAGES} />
        <FieldError id={fields.image.errorId} errors={fields.image.errors} />
      </div>
      <div className="field">
        <label htmlFor={fields.style.id}>Style</label>
        <select {...getSelectProps(fields.style)}>
          <option value="">Choose a style</option>
          {styles.map((style) => (
            <option key={style.value} value={style.value}>
              {style.label}
            </option>
          ))}
        </select>
        <FieldError id={fields.style.errorId} errors={fields.style.errors} />
      </div>
      <div className="field">
        <label htmlFor={fields.name.id}>Name (optional)</label>
        <input {...getInputProps(fields.name, { type: 'text' })} maxLength={100} />
        <FieldError id={fields.name.errorId} errors={fields.name.errors} />
      </div>
      <div className="field">
        <label htmlFor={fields.templatePrompt.id}>Template prompt</label>
        <textarea {...getTextareaProps(fields.templatePrompt)} rows={4} />
        <FieldError id={fields.templatePrompt.errorId} errors={fields.templatePrompt.errors} />
      </div>
      <div className="field">
        <label htmlFor={fields.prompt.id}>Prompt</label>
        <textarea {...getTextareaProps(fields.prompt)} rows={2} />
        <FieldError id={fields.prompt.errorId} errors={fields.prompt.errors} />
      </div>
      <details>
        <summary>Generator options (optional)</summary>
        <div className="field">
          <label htmlFor={fields.personification.id}>Personification</label>
          <select {...getSelectProps(fields.personification)}>
            <option value="">Not set</option>
            <option value="yes">Yes</option>
            <option value="no">No</option>
          </select>
        </div>
        {GUIDED_FIELDS.map(([name, label]) => (
          <div className="field" key={name}>
            <label htmlFor={fields[name].id}>{label}</label>
            <input {...getInputProps(fields[name], { type: 'text' })} />
            <FieldError id={fields[name].errorId} errors={fields[name].errors} />
          </div>
        ))}
      </details>
      <button type="submit" className="button" disabled={submitting}>
        {submitting ? 'Uploading…' : 'Upload template'}
      </button>
    </Form>
  )
}

function StyleForm({ styles, outcome }: { styles: StyleJson[]; outcome: Outcome }) {
  const submitting = useSubmitting(STYLE_FORM)
  const [form, fields] = useForm<z.input<typeof newStyleSchema>>({
    id: STYLE_FORM,
    lastResult: outcome?.result,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: newStyleSchema }),
  })
  return (
    <div className="card form-card">
      <Form method="post" encType="multipart/form-data" {...getFormProps(form)}>
        <h2>Create a style</h2>
        <FormMessages outcome={outcome} errors={form.errors} />
        <input type="hidden" name="intent" value={STYLE_FORM} />
        <div className="field">
          <label htmlFor={fields.value.id}>Style value</label>
          <input {...getInputProps(fields.value, { type: 'text' })} placeholder="e.g. watercolor" maxLength={40} />
          <FieldError id={fields.value.errorId} errors={fields.value.errors} />
        </div>
        <div className="field">
          <label htmlFor={fields.label.id}>Style label</label>
          <input {...getInputProps(fields.label, { type: 'text' })} placeholder="e.g. Watercolor" maxLength={60} />
          <FieldError id={fields.label.errorId} errors={fields.label.errors} />
        </div>
        <button type="submit" className="button" disabled={submitting}>
          {submitting ? 'Creating…' : 'Create style'}
        </button>
      </Form>
      <h3>Gallery styles</h3>
      <ul className="style-list">
        {styles.map((style) => (
          <li key={style.value}>
            <Link to={`/inspiration?style=${encodeURIComponent(style.value)}`}>{style.label}</Link>{' '}
            <span className="muted">{style.value}</span>
          </li>
        ))}
      </ul>
    </div>
  )
}

export function ErrorBoundary() {
  return (
    <GeneralErrorBoundary
      statusHandlers={{ 403: () => <AccessDenied message="Only administrators can update the gallery." /> }}
      fallback="The Update Case page could not be loaded. Please try again later."
    />
  )
}

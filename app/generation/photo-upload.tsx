import { getInputProps, type FieldMetadata } from '@conform-to/react'
import { useEffect, useState, type ChangeEvent, type ReactNode } from 'react'
import { FieldError } from '#app/components/form-errors.tsx'
import { ACCEPTED_IMAGES } from '#app/utils/accepted-images.ts'

/** An object URL previewing the chosen file; the previous one is revoked when it changes or the page leaves. */
export function useFilePreview() {
  const [preview, setPreview] = useState<string | null>(null)
  useEffect(() => {
    if (preview) return () => URL.revokeObjectURL(preview)
  }, [preview])
  const show = (file: File | null | undefined) => setPreview(file ? URL.createObjectURL(file) : null)
  return [preview, show] as const
}

interface PhotoUploadProps {
  field: FieldMetadata<unknown, Record<string, unknown>, string[]>
  /** The drop area's name for screen readers, and its preview's alt text. */
  label: string
  alt: string
  preview: string | null
  /** What to choose, shown until a photo is chosen. */
  hint: ReactNode
  onChange: (event: ChangeEvent<HTMLInputElement>) => void
  errors?: string[]
}

/** A photo input with its drop area (the chosen photo's preview, or what to choose) and its error line. */
export function PhotoUpload({ field, label, alt, preview, hint, onChange, errors }: PhotoUploadProps) {
  return (
    <>
      <label className="photo-drop" htmlFor={field.id}>
        <span className="visually-hidden">{label}</span>
        {preview ? <img src={preview} alt={alt} /> : <span className="muted">{hint}</span>}
      </label>
      <input
        {...getInputProps(field, { type: 'file' })}
        multiple={false}
        accept={ACCEPTED_IMAGES}
        onChange={onChange}
        className="photo-input"
      />
      <FieldError id={field.errorId} errors={errors} />
    </>
  )
}

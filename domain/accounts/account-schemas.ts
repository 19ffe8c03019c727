import { parseWithZod } from '@conform-to/zod'
import { z } from 'zod'

/**
 * The account forms' and APIs' input rules, with the spec's messages (section 5). Shared by the
 * server (API handlers, form actions) and the browser (conform validates as the user types).
 */

const PASSWORD_MIN_LENGTH = 6
export const RESEND_CODE_SECONDS = 60

const m = {
  loginRequired: 'Please enter email and password',
  registerRequired: 'Please fill in all required fields',
  invalidEmail: 'Please enter a valid email address',
  codeFormat: 'Verification code must be 6 digits',
  passwordMismatch: 'Passwords do not match',
  passwordTooShort: `Password must be at least ${PASSWORD_MIN_LENGTH} characters long`,
  emailRequired: 'Please enter your email address',
  codeRequired: 'Please enter the verification code',
  bothPasswords: 'Please enter both password fields',
  usernameRequired: 'Please enter a username',
} as const
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const CODE_PATTERN = /^\d{6}$/

// A missing field reads as '' (JSON may leave it out, forms send it empty), so that it fails a check
// rather than the whole object: the cross-field checks (passwords match) still run while typing.
const asText = (trim: boolean) => (value: unknown) =>
  value === undefined || value === null ? '' : typeof value === 'string' && trim ? value.trim() : value

const text = (required: string, max: number, tooLong: string) =>
  z.preprocess(asText(true), z.string({ invalid_type_error: required }).min(1, required).max(max, tooLong))

// A pipe runs its second schema only when the first passed: one message per field at a time.
const email = (required: string) =>
  text(required, 254, m.invalidEmail).pipe(z.string().regex(EMAIL_PATTERN, m.invalidEmail).toLowerCase())

const code = (required: string) => text(required, 6, m.codeFormat).pipe(z.string().regex(CODE_PATTERN, m.codeFormat))

const name = (required: string) => text(required, 50, 'Username must be at most 50 characters long')

// Passwords are kept exactly as typed (no trimming).
const passwordTooLong = 'Password must be at most 128 characters long'
const password = (required: string) =>
  z.preprocess(asText(false), z.string({ invalid_type_error: required }).min(1, required).max(128, passwordTooLong))
const newPassword = (required: string) =>
  password(required).pipe(z.string().min(PASSWORD_MIN_LENGTH, m.passwordTooShort))

/** An optional field: blank is the same as absent. */
const optional = <Schema extends z.ZodTypeAny>(schema: Schema) =>
  z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? undefined : value), schema.optional())

function passwordsMatch(value: { password: string; confirmPassword: string }, ctx: z.RefinementCtx) {
  if (value.password && value.confirmPassword && value.password !== value.confirmPassword) {
    ctx.addIssue({ code: 'custom', path: ['confirmPassword'], message: m.passwordMismatch })
  }
}

/**
 * conform's parse without its own coercion of empty fields: these schemas treat blanks themselves,
 * the same way for form posts and for the API's JSON.
 */
export function parseAccountForm<Schema extends z.ZodTypeAny>(formData: FormData, schema: Schema) {
  return parseWithZod(formData, { schema, disableAutoCoercion: true })
}

export const loginSchema = z.object({
  email: text(m.loginRequired, 254, m.loginRequired),
  password: password(m.loginRequired),
})

/** POST /api/auth/register. With verification off the code is ignored (the spec sends NO_VERIFICATION_CODE_NEEDED). */
export function registerSchema(verificationEnabled: boolean) {
  return z.object({
    name: name(m.registerRequired),
    email: email(m.registerRequired),
    password: newPassword(m.registerRequired),
    verificationCode: verificationEnabled ? code(m.codeFormat) : z.unknown().transform(() => undefined),
  })
}

/** The /register form: the API's fields plus the confirmation. */
export function registerFormSchema(verificationEnabled: boolean) {
  return registerSchema(verificationEnabled)
    .extend({ confirmPassword: password(m.registerRequired) })
    .superRefine(passwordsMatch)
}

/** Send Code on /register, and POST /api/auth/send-verification-code. */
export const sendCodeSchema = z.object({ email: email(m.invalidEmail) })

/** POST /api/auth/forgot-password, and the first step of /forgot-password. */
export const forgotPasswordSchema = z.object({ email: email(m.emailRequired) })

/** POST /api/auth/reset-password, and the second step of /forgot-password. */
export const resetPasswordSchema = z
  .object({
    email: email(m.emailRequired),
    verificationCode: code(m.codeRequired),
    password: newPassword(m.bothPasswords),
    confirmPassword: password(m.bothPasswords),
  })
  .superRefine(passwordsMatch)

/** PUT /api/auth/update-profile and the /profile form: a username and, optionally, a new password. */
export const profileSchema = z.object({
  name: name(m.usernameRequired),
  /** Shown read-only; sent back unchanged, or not at all. */
  email: optional(z.string().trim()),
  password: optional(z.string().min(PASSWORD_MIN_LENGTH, m.passwordTooShort).max(128, passwordTooLong)),
  /** Required with a new password when the account has one (checked on the server, which knows). */
  currentPassword: optional(z.string().max(128, passwordTooLong)),
})

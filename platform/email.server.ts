import { randomUUID } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import nodemailer, { type Transporter } from 'nodemailer'
import type { DB, Tx } from './db.server.ts'
import { getEnv } from './env.server.ts'
import { enqueueJob, type JobPayloads } from './jobs.server.ts'

export type EmailMessage = JobPayloads['send_email']

/**
 * Queues a message for the worker's send_email job. Pass the transaction that does the work the
 * message reports, so that the email goes out only if it commits.
 */
export async function queueEmail(db: DB | Tx, message: EmailMessage) {
  await enqueueJob(db, 'send_email', message)
}

let transport: Transporter | undefined

function smtpTransport(smtpUrl: string) {
  transport ??= nodemailer.createTransport(smtpUrl)
  return transport
}

/**
 * Sends a message through SMTP_URL. Without SMTP_URL the message is written as an .eml file under
 * DATA_DIR/outbox instead (and its path logged), so codes can be read on a machine without mail.
 * Answers where the message went.
 */
export async function deliverEmail(message: EmailMessage): Promise<string> {
  const env = getEnv()
  const mail = { from: env.MAIL_FROM, ...message }
  if (env.SMTP_URL) {
    const info = await smtpTransport(env.SMTP_URL).sendMail(mail)
    return `sent by SMTP as ${info.messageId}`
  }
  const raw = await nodemailer.createTransport({ streamTransport: true, buffer: true }).sendMail(mail)
  const outbox = path.join(env.DATA_DIR, 'outbox')
  await fs.mkdir(outbox, { recursive: true })
  const file = path.join(outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`)
  await fs.writeFile(file, raw.message)
  return `written to ${file}`
}

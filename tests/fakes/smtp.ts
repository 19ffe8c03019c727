import type { AddressInfo } from 'node:net'
import { type ParsedMail, simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { waitFor } from '#tests/helpers/worker-process.ts'

/**
 * A real SMTP server on 127.0.0.1 that keeps every message it receives, parsed, so tests can read
 * what nodemailer sent (an HTTP mock cannot see SMTP). No TLS and no authentication.
 */
export interface SmtpCatcher {
  url: string
  messages: ParsedMail[]
  /** The first message received (so far or soon) to `to`, with `subject` if given. */
  waitForMessage(to: string, subject?: string): Promise<ParsedMail>
  close(): Promise<void>
}

export async function startSmtpCatcher(): Promise<SmtpCatcher> {
  const messages: ParsedMail[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          messages.push(mail)
          callback()
        })
        .catch(callback)
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo

  const sentTo = (mail: ParsedMail, to: string) => {
    const addresses = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : []
    return addresses.some((group) => group.value.some((entry) => entry.address === to))
  }

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitForMessage: (to, subject) =>
      waitFor(() => messages.find((mail) => sentTo(mail, to) && (subject === undefined || mail.subject === subject)), {
        timeout: 20_000,
        interval: 100,
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** The 6-digit code in a verification email's text. */
export function codeFrom(mail: ParsedMail): string {
  const match = /\b(\d{6})\b/.exec(mail.text ?? '')
  if (!match) throw new Error(`no code in the email: ${mail.text}`)
  return match[1]
}

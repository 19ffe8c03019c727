/**
 * The words of every refund line in credit history: which version was refunded and why, in plain
 * words, built here from a reason code and nowhere else (the worker, recovery and the waits pass a
 * code). A one-version run's line says "this
 * picture"; a run of several names the version ("version 3 of 4").
 */
import type { TaskKind } from '#platform/db-schema.ts'

export type RefundReason =
  /** The provider's content rules declined it (a moderation or safety refusal). */
  | 'refused'
  /** Calls ran out of time (a stall, a second timed-out call): no provider finished it. */
  | 'timeout'
  /** The provider stayed too busy (429s, no room) for longer than a task may wait. */
  | 'busy'
  /** The provider could not be reached for longer than a task may wait. */
  | 'unreachable'
  /** The provider account's quota or credit ran out. */
  | 'quota'
  /** The provider refused our key or account (401/403). */
  | 'auth'
  /** Any other error of the provider's (a 5xx that kept coming, an answer without the picture). */
  | 'provider_error'
  /** The provider answered with fewer versions than were asked for. */
  | 'not_delivered'
  /** The uploaded photo was gone before the work could start. */
  | 'photo_gone'
  /** The worker was stopped or lost so often that the task ran out of attempts. */
  | 'interrupted'
  /** The task's job was lost before it could run. */
  | 'not_scheduled'
  /** The upscaler could not enlarge the picture ("Make it bigger"). */
  | 'not_enlarged'
  /** Something of ours failed. */
  | 'internal'

export interface RefundedVersion {
  kind: TaskKind
  /** From 0. */
  index: number
  /** How many versions the run asked for. */
  of: number
}

const phrases: Record<RefundReason, (it: string) => string> = {
  refused: (it) => `the provider declined ${it} (safety)`,
  timeout: (it) => `no provider could finish ${it} in time`,
  busy: (it) => `the provider stayed too busy to make ${it}`,
  unreachable: (it) => `the provider could not be reached to make ${it}`,
  quota: (it) => `the provider could not take ${it} (our quota with it ran out)`,
  auth: (it) => `the provider would not accept our account, so ${it} was not made`,
  provider_error: (it) => `the provider failed to make ${it}`,
  not_delivered: (it) => `the provider did not deliver ${it}`,
  photo_gone: (it) => `the uploaded photo was no longer there to make ${it}`,
  interrupted: (it) => `${it} was interrupted too many times`,
  not_scheduled: (it) => `${it} could not be scheduled`,
  not_enlarged: (it) => `${it} could not be enlarged`,
  internal: (it) => `something went wrong on our side while making ${it}`,
}

/** "Refunded: the provider declined this picture (safety)"; "Refunded: the provider did not deliver version 3 of 4". */
export function refundLine(reason: RefundReason, version: RefundedVersion): string {
  return `Refunded: ${phrases[reason](versionName(version))}`
}

/** "Refunded the HD difference: version 2 of 4 came back smaller than HD" (decision 0035). */
export function hdDifferenceLine(version: RefundedVersion): string {
  return `Refunded the HD difference: ${versionName(version)} came back smaller than HD`
}

function versionName(version: RefundedVersion): string {
  if (version.of > 1) return `version ${version.index + 1} of ${version.of}`
  return version.kind === 'image' ? 'this picture' : 'this video'
}

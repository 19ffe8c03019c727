/**
 * HD is paid for by size: a model may ignore the size it was asked for, so each version of an HD
 * run is measured, and one whose long edge is under the provider's HD edge gets back what HD cost
 * over standard (the difference stored with the task when it was paid for). Decision 0035. The
 * stored data keeps its first names: the params' `hdShortfallRefund`, the ledger's `refund_kind`
 * 'hd_shortfall'.
 */
import { z } from 'zod'
import type { DeliveredVersion } from './task-version.ts'

const hdParamsSchema = z.object({ quality: z.literal('hd'), hdShortfallRefund: z.number().int().min(1) })

/** The versions to refund and the amount each, or null when nothing is owed. */
export function hdDifferenceOwed(
  params: unknown,
  versions: Pick<DeliveredVersion, 'index' | 'width' | 'height' | 'hdLongEdge'>[],
  /** For a version whose provider's edge is unknown; undefined: such a version is not measured. */
  fallbackEdge: number | undefined,
): { versionIndexes: number[]; amount: number } | null {
  const hd = hdParamsSchema.safeParse(params)
  if (!hd.success) return null
  const small = versions.filter((version) => {
    const edge = version.hdLongEdge ?? fallbackEdge
    return (
      edge !== undefined &&
      typeof version.width === 'number' &&
      typeof version.height === 'number' &&
      Math.max(version.width, version.height) < edge
    )
  })
  if (small.length === 0) return null
  return { versionIndexes: small.map((version) => version.index), amount: hd.data.hdShortfallRefund }
}

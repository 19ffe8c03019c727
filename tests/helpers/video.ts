import { action as generateVideo } from '#app/routes/api.async-video.generate.ts'
import { callRoute, makeRequest } from './app.ts'

/** A multipart POST /api/async-video/generate: the text fields, then `image` when given. */
function videoRequest(token: string | undefined, fields: Record<string, string>, image?: File | File[]) {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  for (const file of [image ?? []].flat()) form.append('image', file)
  return makeRequest('/api/async-video/generate', { method: 'POST', token, body: form })
}

/** Submits through the real API route; answers the status and the JSON body. */
export async function submitVideo(token: string | undefined, fields: Record<string, string>, image?: File | File[]) {
  const response = await callRoute(generateVideo, videoRequest(token, fields, image))
  return { status: response.status, body: await response.json() }
}

interface Box {
  type: string
  /** Where the box's content starts (after its header) and where the box ends. */
  body: number
  end: number
}

/** The boxes (atoms) of an ISO-BMFF file between two offsets. */
function boxesIn(bytes: Buffer, start: number, end: number): Box[] {
  const boxes: Box[] = []
  for (let offset = start; offset + 8 <= end;) {
    let size = bytes.readUInt32BE(offset)
    let header = 8
    if (size === 1) {
      size = Number(bytes.readBigUInt64BE(offset + 8))
      header = 16
    } else if (size === 0) {
      size = end - offset
    }
    if (size < header) break
    boxes.push({ type: bytes.toString('latin1', offset + 4, offset + 8), body: offset + header, end: offset + size })
    offset += size
  }
  return boxes
}

function child(bytes: Buffer, parent: Box | undefined, path: string[]): Box | undefined {
  let box = parent
  for (const type of path) {
    box = boxesIn(bytes, box?.body ?? 0, box?.end ?? bytes.length).find((candidate) => candidate.type === type)
    if (!box) return undefined
  }
  return box
}

/**
 * What an MP4 says about itself, read from its boxes: the major brand of `ftyp`, the duration from
 * `mvhd`, and the codec and pixel size of the first visual sample entry (`avc1` for H.264).
 */
export function inspectMp4(bytes: Buffer) {
  const ftyp = child(bytes, undefined, ['ftyp'])
  const moov = child(bytes, undefined, ['moov'])
  const mvhd = child(bytes, moov, ['mvhd'])
  if (!ftyp || !moov || !mvhd) return null
  const version = bytes.readUInt8(mvhd.body)
  const [timescale, duration] =
    version === 1
      ? [bytes.readUInt32BE(mvhd.body + 20), Number(bytes.readBigUInt64BE(mvhd.body + 24))]
      : [bytes.readUInt32BE(mvhd.body + 12), bytes.readUInt32BE(mvhd.body + 16)]

  const tracks = boxesIn(bytes, moov.body, moov.end).filter((box) => box.type === 'trak')
  for (const trak of tracks) {
    const stsd = child(bytes, trak, ['mdia', 'minf', 'stbl', 'stsd'])
    // stsd: version and flags, entry count, then the sample entries.
    const [entry] = stsd ? boxesIn(bytes, stsd.body + 8, stsd.end) : []
    if (!entry || !child(bytes, trak, ['mdia', 'minf', 'vmhd'])) continue
    // A visual sample entry: 6 reserved bytes, data reference index, 16 bytes of pre-defined, then width and height.
    return {
      majorBrand: bytes.toString('latin1', ftyp.body, ftyp.body + 4),
      durationSeconds: duration / timescale,
      codec: entry.type,
      width: bytes.readUInt16BE(entry.body + 24),
      height: bytes.readUInt16BE(entry.body + 26),
    }
  }
  return null
}

import { useRef, useState } from 'react'

/**
 * With JavaScript a chosen pet photo is checked at once (POST /api/photo-check) and the answer is
 * shown beside it: what to change when it cannot work, warnings when it may work less well, what
 * the vision model saw. Without JavaScript the same check answers on submit, beside the field.
 */
type PhotoCheckState =
  | { kind: 'idle' }
  | { kind: 'checking' }
  | { kind: 'checked'; ok: boolean; message: string | null; warnings: string[]; seen: string | null }

interface PhotoCheckAnswer {
  ok?: boolean
  message?: string | null
  warnings?: string[]
  traits?: { species: string; breed: string; colours: string[] } | null
}

export function usePhotoCheck() {
  const [state, setState] = useState<PhotoCheckState>({ kind: 'idle' })
  const latest = useRef(0)
  async function check(file: File | null | undefined) {
    const turn = ++latest.current
    if (!file) return setState({ kind: 'idle' })
    setState({ kind: 'checking' })
    const body = new FormData()
    body.append('image', file)
    let answer: PhotoCheckAnswer = {}
    try {
      const response = await fetch('/api/photo-check', { method: 'POST', body })
      answer = await response.json()
      // Signed out, or the check itself is unavailable: the submission checks again.
      if (!response.ok && response.status !== 400 && response.status !== 413) answer = {}
      else if (!response.ok) answer = { ok: false, message: answer.message ?? null, warnings: [] }
    } catch {
      answer = {}
    }
    if (turn !== latest.current) return
    if (answer.ok === undefined) return setState({ kind: 'idle' })
    setState({
      kind: 'checked',
      ok: answer.ok,
      message: answer.message ?? null,
      warnings: answer.warnings ?? [],
      seen: answer.traits ? seenText(answer.traits) : null,
    })
  }
  return [state, check] as const
}

function seenText(traits: NonNullable<PhotoCheckAnswer['traits']>) {
  const colours = traits.colours.length > 0 ? `${traits.colours.join(' and ')} ` : ''
  return `We see a ${colours}${traits.species}${traits.breed ? ` (${traits.breed})` : ''}.`
}

export function PhotoCheckNote({ state }: { state: PhotoCheckState }) {
  if (state.kind === 'idle') return null
  if (state.kind === 'checking') {
    return (
      <p className="muted photo-check" role="status">
        Checking your photo…
      </p>
    )
  }
  if (!state.ok) {
    return (
      <p className="form-error photo-check" role="alert">
        {state.message}
      </p>
    )
  }
  return (
    <div className="photo-check" role="status">
      <p className="form-success">
        {state.warnings.length === 0 ? 'Your photo looks good.' : 'Your photo can be used.'} {state.seen}
      </p>
      {state.warnings.length > 0 ? (
        <ul className="muted">
          {state.warnings.map((warning) => (
            <li key={warning}>{warning}</li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}

import { getSelectProps, type FieldMetadata } from '@conform-to/react'
import { useState } from 'react'
import { FieldError } from '#app/components/form-errors.tsx'
import { useHydrated } from '#app/hooks/use-hydrated.ts'
import { ASPECT_RATIOS, RESOLUTIONS } from '#domain/generation/video-dimensions.ts'
import { aspectRatioLabels, resolutionLabels } from '#domain/generation/video-generation-form.ts'

interface VideoDimensionsFieldProps {
  aspectRatio: FieldMetadata<string | undefined>
  resolution: FieldMetadata<string | undefined>
}

/** The video's aspect ratio and resolution; 1280p only for 16:9. */
export function VideoDimensionsField({ aspectRatio, resolution }: VideoDimensionsFieldProps) {
  // Without JavaScript both stay enabled; the server forces 720p for 9:16.
  const hydrated = useHydrated()
  const [portrait, setPortrait] = useState(aspectRatio.initialValue === '9:16')
  const [chosen, setChosen] = useState(resolution.initialValue === '1280p' ? '1280p' : '720p')
  return (
    <div className="video-options">
      <div className="field">
        <label htmlFor={aspectRatio.id}>Aspect ratio</label>
        <select
          {...getSelectProps(aspectRatio)}
          onChange={(event) => {
            const isPortrait = event.currentTarget.value === '9:16'
            setPortrait(isPortrait)
            if (isPortrait) setChosen('720p')
          }}
        >
          {ASPECT_RATIOS.map((ratio) => (
            <option key={ratio} value={ratio}>
              {aspectRatioLabels[ratio]}
            </option>
          ))}
        </select>
        <FieldError id={aspectRatio.errorId} errors={aspectRatio.errors} />
      </div>
      <div className="field">
        <label htmlFor={resolution.id}>Resolution</label>
        {/* Controlled: choosing 9:16 forces 720p and locks it. */}
        <select
          id={resolution.id}
          name={resolution.name}
          aria-describedby={`${resolution.errorId} resolution-hint`}
          value={portrait ? '720p' : chosen}
          disabled={hydrated && portrait}
          onChange={(event) => setChosen(event.currentTarget.value === '1280p' ? '1280p' : '720p')}
        >
          {RESOLUTIONS.map((value) => (
            <option key={value} value={value}>
              {resolutionLabels[value]}
            </option>
          ))}
        </select>
        <p className="muted video-hint" id="resolution-hint">
          1280p is available only for 16:9.
        </p>
        <FieldError id={resolution.errorId} errors={resolution.errors} />
      </div>
    </div>
  )
}

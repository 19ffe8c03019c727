// The photo check's local part (decode with shrink-on-load, size, blank, blur) on a 12-megapixel
// phone-sized JPEG: it runs on every upload before anything is charged, so it must stay quick
// (target < 150 ms at p50). The vision call is a network wait and is not measured here.
import { performance } from 'node:perf_hooks'
import { judgeMeasures } from '#domain/photo-check/local-verdict.ts'
import { measurePhoto } from '#domain/photo-check/photo-measures.server.ts'
import { drawnPetPhoto } from '#tests/helpers/pet-photos.ts'
import { percentile, round } from './lib.ts'

const RUNS = 15

export async function benchPhotoCheck() {
  const photo = await drawnPetPhoto({ width: 4000 })
  await measurePhoto(photo) // warm-up: libvips loads its JPEG decoder once
  const times: number[] = []
  let verdict = ''
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now()
    const result = judgeMeasures(await measurePhoto(photo))
    times.push(performance.now() - started)
    verdict = result.refusal ?? (result.warnings.length > 0 ? 'warned' : 'passed')
  }
  times.sort((a, b) => a - b)
  return {
    'photo (4000×3000 JPEG, MB)': round(photo.length / 1024 / 1024, 2),
    'local check p50 (ms)': round(percentile(times, 50)),
    'local check p95 (ms)': round(percentile(times, 95)),
    'target p50 (ms)': 150,
    verdict,
  }
}

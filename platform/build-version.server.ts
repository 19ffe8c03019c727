import { getEnv } from './env.server.ts'

/** Which build is running: BUILD_VERSION (set when the image is built), else Fly's image reference. */
export function buildVersion(): string {
  const env = getEnv()
  return env.BUILD_VERSION ?? env.FLY_IMAGE_REF ?? 'development'
}

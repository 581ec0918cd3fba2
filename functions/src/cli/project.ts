import { ConfigError } from "../domain/errors.js";

/** The local stack's project (functions/src/cli/investigate.ts), the default against an emulator. */
export const LOCAL_PROJECT = "ferret-local";

/**
 * The project an operator command works on: GOOGLE_CLOUD_PROJECT, or with
 * FIRESTORE_EMULATOR_HOST set, the local stack's.
 */
export function projectFromEnv(env: NodeJS.ProcessEnv): string {
  const projectId =
    env.GOOGLE_CLOUD_PROJECT ??
    env.GCLOUD_PROJECT ??
    (env.FIRESTORE_EMULATOR_HOST ? LOCAL_PROJECT : undefined);
  if (!projectId) {
    throw new ConfigError("set GOOGLE_CLOUD_PROJECT (or FIRESTORE_EMULATOR_HOST for a local emulator)");
  }
  // Against an emulator there is no metadata server; without this, google-auth probes for one and warns.
  if (env.FIRESTORE_EMULATOR_HOST) process.env.METADATA_SERVER_DETECTION ??= "none";
  return projectId;
}

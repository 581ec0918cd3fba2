import { Firestore } from "@google-cloud/firestore";

export interface FirestoreConfig {
  projectId: string;
  /** Named database; "(default)" when omitted. */
  databaseId?: string;
}

/**
 * The one place a Firestore client is constructed. The client library itself switches to
 * the emulator (plain-text gRPC, no credentials) when FIRESTORE_EMULATOR_HOST is set, so
 * production and local code paths differ only in the environment.
 */
export function createFirestore(config: FirestoreConfig): Firestore {
  return new Firestore({
    projectId: config.projectId,
    ...(config.databaseId ? { databaseId: config.databaseId } : {}),
    // Domain objects carry optional fields as undefined; Firestore would reject them.
    ignoreUndefinedProperties: true,
  });
}

/**
 * The port through which `ferret doctor` sees a deployed project. The real adapter
 * (adapters/gcp/deployment-inventory.ts) asks Google's APIs; tests use a double.
 */
export interface DeployedFunction {
  /** Service name, e.g. ferret-planner. */
  name: string;
  /** ACTIVE when it serves; anything else means the deployment did not finish. */
  state: string;
  url?: string;
  serviceAccountEmail?: string;
  /** Plain environment variables, and the names of those mounted from secrets. */
  env: Record<string, string>;
  secretEnv: string[];
  /** serviceConfig.maxInstanceCount; absent when the API reports none. */
  maxInstances?: number;
  /** serviceConfig.maxInstanceRequestConcurrency; absent means the default of 1. */
  concurrency?: number;
}

export interface DeployedIndex {
  collectionGroup: string;
  /** "field:ASCENDING", "field:DESCENDING", "field:CONTAINS" or "field:VECTOR(768)", in order, without __name__. */
  fields: string[];
  state: string;
}

export interface DeploymentInventory {
  enabledApis(): Promise<string[]>;
  functions(): Promise<DeployedFunction[]>;
  /** Project-level roles held by a member ("serviceAccount:…"). */
  projectRoles(member: string): Promise<string[]>;
  /** Whether the secret exists with at least one enabled version. */
  secretHasVersion(secretId: string): Promise<boolean>;
  firestoreIndexes(): Promise<DeployedIndex[]>;
  /** The topic an SCC notification config publishes to, or undefined when it does not exist. */
  sccNotificationTopic(): Promise<string | undefined>;
}

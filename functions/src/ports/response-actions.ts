/**
 * The three Google APIs ferret's response actions call, reduced to what the actions need.
 * Adapters (adapters/iam, adapters/compute, adapters/resourcemanager) implement them with
 * Google's client libraries; the local stand-in (local/response-actions-stand-in.ts) answers
 * the same REST methods.
 */

export interface ServiceAccountKeyState {
  /** projects/<project>/serviceAccounts/<email>/keys/<id> */
  name: string;
  disabled: boolean;
  keyType?: string;
  validAfterTime?: string;
  validBeforeTime?: string;
}

/** IAM projects.serviceAccounts.keys.get / .disable */
export interface ServiceAccountKeys {
  get(name: string): Promise<ServiceAccountKeyState>;
  disable(name: string): Promise<void>;
}

export interface InstanceRef {
  project: string;
  zone: string;
  instance: string;
}

export interface InstanceTagState {
  /** The instance's name as Compute reports it (the ref may hold its numeric id). */
  name: string;
  items: string[];
  /** Compute's optimistic-lock token: setTags must send the one it read. */
  fingerprint: string;
}

/** Compute instances.get / instances.setTags */
export interface InstanceTags {
  get(ref: InstanceRef): Promise<InstanceTagState>;
  /** Returns the zonal operation's name and status (setTags is asynchronous). */
  set(
    ref: InstanceRef,
    tags: { items: string[]; fingerprint: string },
  ): Promise<{ operation: string; status: string }>;
}

export interface IamBinding {
  role: string;
  members: string[];
  /** A conditional binding's condition, passed through untouched. */
  condition?: { expression: string; title?: string; description?: string };
}

export interface IamPolicy {
  version?: number;
  etag: string;
  bindings: IamBinding[];
  /** auditConfigs and anything else the policy holds, passed back unchanged on set. */
  rest: Record<string, unknown>;
}

/** Resource Manager v3 projects.getIamPolicy / projects.setIamPolicy */
export interface ProjectIamPolicies {
  get(project: string): Promise<IamPolicy>;
  /** Fails with a ConflictError when the policy's etag is no longer current. */
  set(project: string, policy: IamPolicy): Promise<IamPolicy>;
}

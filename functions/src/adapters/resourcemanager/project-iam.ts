import { auth, cloudresourcemanager, type cloudresourcemanager_v3 } from "@googleapis/cloudresourcemanager";
import type { IamBinding, IamPolicy, ProjectIamPolicies } from "../../ports/response-actions.js";
import { googleApiError } from "../gcp/api-errors.js";
import type { GoogleApiClientOptions } from "../iam/service-account-keys.js";

type Policy = cloudresourcemanager_v3.Schema$Policy;

function fromApi(policy: Policy): IamPolicy {
  const { bindings, etag, version, ...rest } = policy;
  if (!etag) throw new Error("the policy carries no etag");
  return {
    ...(typeof version === "number" ? { version } : {}),
    etag,
    bindings: (bindings ?? []).map((b) => ({
      role: b.role ?? "",
      members: b.members ?? [],
      ...(b.condition?.expression
        ? {
            condition: {
              expression: b.condition.expression,
              ...(b.condition.title ? { title: b.condition.title } : {}),
              ...(b.condition.description ? { description: b.condition.description } : {}),
            },
          }
        : {}),
    })),
    rest: rest as Record<string, unknown>,
  };
}

function toApi(policy: IamPolicy): Policy {
  const bindings: IamBinding[] = policy.bindings;
  return {
    ...(policy.rest as Policy),
    ...(policy.version !== undefined ? { version: policy.version } : {}),
    etag: policy.etag,
    bindings,
  };
}

/**
 * Resource Manager v3 projects.getIamPolicy / setIamPolicy. Version 3 is requested so
 * conditional bindings come back whole and are written back unchanged.
 */
export class ResourceManagerProjectIam implements ProjectIamPolicies {
  private readonly client: cloudresourcemanager_v3.Cloudresourcemanager;

  constructor(options: GoogleApiClientOptions = {}) {
    this.client = options.rootUrl
      ? cloudresourcemanager({ version: "v3", rootUrl: options.rootUrl })
      : cloudresourcemanager({
          version: "v3",
          auth: new auth.GoogleAuth({ scopes: ["https://www.googleapis.com/auth/cloud-platform"] }),
        });
  }

  async get(project: string): Promise<IamPolicy> {
    try {
      const { data } = await this.client.projects.getIamPolicy({
        resource: project,
        requestBody: { options: { requestedPolicyVersion: 3 } },
      });
      return fromApi(data);
    } catch (error) {
      throw googleApiError(`projects.getIamPolicy ${project}`, error);
    }
  }

  async set(project: string, policy: IamPolicy): Promise<IamPolicy> {
    try {
      const { data } = await this.client.projects.setIamPolicy({
        resource: project,
        requestBody: { policy: toApi(policy) },
      });
      return fromApi(data);
    } catch (error) {
      throw googleApiError(`projects.setIamPolicy ${project}`, error);
    }
  }
}

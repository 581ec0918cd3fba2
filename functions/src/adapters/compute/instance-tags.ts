import { auth, compute, type compute_v1 } from "@googleapis/compute";
import type { InstanceRef, InstanceTagState, InstanceTags } from "../../ports/response-actions.js";
import { googleApiError } from "../gcp/api-errors.js";
import type { GoogleApiClientOptions } from "../iam/service-account-keys.js";

/** Compute v1 instances.get and instances.setTags through @googleapis/compute. */
export class ComputeInstanceTags implements InstanceTags {
  private readonly client: compute_v1.Compute;

  constructor(options: GoogleApiClientOptions = {}) {
    this.client = options.rootUrl
      ? compute({ version: "v1", rootUrl: options.rootUrl })
      : compute({
          version: "v1",
          auth: new auth.GoogleAuth({ scopes: ["https://www.googleapis.com/auth/cloud-platform"] }),
        });
  }

  async get(ref: InstanceRef): Promise<InstanceTagState> {
    try {
      const { data } = await this.client.instances.get({ ...ref });
      // An instance that never had tags still has a fingerprint; setTags needs it.
      const fingerprint = data.tags?.fingerprint;
      if (!fingerprint) throw new Error("the instance's tags carry no fingerprint");
      return { name: data.name ?? ref.instance, items: data.tags?.items ?? [], fingerprint };
    } catch (error) {
      throw googleApiError(`instances.get ${ref.project}/${ref.zone}/${ref.instance}`, error);
    }
  }

  async set(
    ref: InstanceRef,
    tags: { items: string[]; fingerprint: string },
  ): Promise<{ operation: string; status: string }> {
    try {
      const { data } = await this.client.instances.setTags({ ...ref, requestBody: tags });
      return { operation: data.name ?? "(unnamed)", status: data.status ?? "UNKNOWN" };
    } catch (error) {
      throw googleApiError(`instances.setTags ${ref.project}/${ref.zone}/${ref.instance}`, error);
    }
  }
}

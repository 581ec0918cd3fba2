import { auth, iam, type iam_v1 } from "@googleapis/iam";
import type { ServiceAccountKeyState, ServiceAccountKeys } from "../../ports/response-actions.js";
import { googleApiError } from "../gcp/api-errors.js";

export interface GoogleApiClientOptions {
  /** A local stand-in's root URL (tests, the local stack); unset means Google's endpoint. */
  rootUrl?: string;
}

/** IAM v1 projects.serviceAccounts.keys.get and .disable through @googleapis/iam. */
export class IamServiceAccountKeys implements ServiceAccountKeys {
  private readonly client: iam_v1.Iam;

  constructor(options: GoogleApiClientOptions = {}) {
    this.client = options.rootUrl
      ? iam({ version: "v1", rootUrl: options.rootUrl })
      : iam({
          version: "v1",
          // Application default credentials: the function's service account when deployed.
          auth: new auth.GoogleAuth({ scopes: ["https://www.googleapis.com/auth/cloud-platform"] }),
        });
  }

  async get(name: string): Promise<ServiceAccountKeyState> {
    try {
      const { data } = await this.client.projects.serviceAccounts.keys.get({ name });
      return {
        name: data.name ?? name,
        disabled: data.disabled === true,
        ...(data.keyType ? { keyType: data.keyType } : {}),
        ...(data.validAfterTime ? { validAfterTime: data.validAfterTime } : {}),
        ...(data.validBeforeTime ? { validBeforeTime: data.validBeforeTime } : {}),
      };
    } catch (error) {
      throw googleApiError(`keys.get ${name}`, error);
    }
  }

  async disable(name: string): Promise<void> {
    try {
      await this.client.projects.serviceAccounts.keys.disable({ name, requestBody: {} });
    } catch (error) {
      throw googleApiError(`keys.disable ${name}`, error);
    }
  }
}

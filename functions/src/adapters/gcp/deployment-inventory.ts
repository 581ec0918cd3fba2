import firestore from "@google-cloud/firestore";
import { SecretManagerServiceClient } from "@google-cloud/secret-manager";
import { GoogleAuth } from "google-auth-library";
import { z } from "zod";
import type { DeployedFunction, DeployedIndex, DeploymentInventory } from "../../doctor/inventory.js";

/**
 * DeploymentInventory on Google's APIs, with the caller's Application Default Credentials.
 * Client libraries where the project already depends on one (Secret Manager, the Firestore
 * admin client); plain REST through google-auth-library for Service Usage, Cloud Functions v2,
 * Resource Manager (IAM policy) and Security Command Center v2, which have none here.
 */
export interface InventoryTarget {
  projectId: string;
  region: string;
  databaseId: string;
  organizationId?: string;
  sccConfigId?: string;
}

const ServicesPage = z.object({
  services: z.array(z.object({ config: z.object({ name: z.string() }) })).default([]),
  nextPageToken: z.string().optional(),
});

const FunctionsPage = z.object({
  functions: z
    .array(
      z.object({
        name: z.string(),
        state: z.string().default("STATE_UNSPECIFIED"),
        serviceConfig: z
          .object({
            uri: z.string().optional(),
            serviceAccountEmail: z.string().optional(),
            environmentVariables: z.record(z.string(), z.string()).default({}),
            secretEnvironmentVariables: z.array(z.object({ key: z.string() })).default([]),
            // https://cloud.google.com/functions/docs/reference/rest/v2/projects.locations.functions#serviceconfig
            maxInstanceCount: z.number().int().optional(),
            maxInstanceRequestConcurrency: z.number().int().optional(),
          })
          .default({ environmentVariables: {}, secretEnvironmentVariables: [] }),
      }),
    )
    .default([]),
  nextPageToken: z.string().optional(),
});

const Policy = z.object({
  bindings: z.array(z.object({ role: z.string(), members: z.array(z.string()).default([]) })).default([]),
});

const NotificationConfig = z.object({ pubsubTopic: z.string().default("") });

export class GoogleDeploymentInventory implements DeploymentInventory {
  private readonly auth = new GoogleAuth({ scopes: ["https://www.googleapis.com/auth/cloud-platform"] });
  private readonly secrets = new SecretManagerServiceClient();
  // The admin client is only reachable through the CommonJS namespace object.
  private readonly admin = new firestore.v1.FirestoreAdminClient();
  private cachedFunctions: Promise<DeployedFunction[]> | undefined;
  private cachedPolicy: Promise<z.infer<typeof Policy>> | undefined;

  constructor(private readonly target: InventoryTarget) {}

  private async get<T>(url: string, schema: z.ZodType<T>, method: "GET" | "POST" = "GET"): Promise<T> {
    const client = await this.auth.getClient();
    const response = await client.request({
      url,
      method,
      ...(method === "POST" ? { data: { options: { requestedPolicyVersion: 3 } } } : {}),
    });
    return schema.parse(response.data);
  }

  async enabledApis(): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.get(
        `https://serviceusage.googleapis.com/v1/projects/${this.target.projectId}/services?filter=state:ENABLED&pageSize=200${token ? `&pageToken=${token}` : ""}`,
        ServicesPage,
      );
      out.push(...page.services.map((s) => s.config.name));
      token = page.nextPageToken;
    } while (token);
    return out;
  }

  functions(): Promise<DeployedFunction[]> {
    this.cachedFunctions ??= (async () => {
      const page = await this.get(
        `https://cloudfunctions.googleapis.com/v2/projects/${this.target.projectId}/locations/${this.target.region}/functions?pageSize=100`,
        FunctionsPage,
      );
      return page.functions.map((f) => ({
        name: f.name.split("/").at(-1) ?? f.name,
        state: f.state,
        ...(f.serviceConfig.uri ? { url: f.serviceConfig.uri } : {}),
        ...(f.serviceConfig.serviceAccountEmail
          ? { serviceAccountEmail: f.serviceConfig.serviceAccountEmail }
          : {}),
        env: f.serviceConfig.environmentVariables,
        secretEnv: f.serviceConfig.secretEnvironmentVariables.map((s) => s.key),
        ...(f.serviceConfig.maxInstanceCount !== undefined
          ? { maxInstances: f.serviceConfig.maxInstanceCount }
          : {}),
        ...(f.serviceConfig.maxInstanceRequestConcurrency !== undefined
          ? { concurrency: f.serviceConfig.maxInstanceRequestConcurrency }
          : {}),
      }));
    })();
    return this.cachedFunctions;
  }

  async projectRoles(member: string): Promise<string[]> {
    this.cachedPolicy ??= this.get(
      `https://cloudresourcemanager.googleapis.com/v3/projects/${this.target.projectId}:getIamPolicy`,
      Policy,
      "POST",
    );
    const policy = await this.cachedPolicy;
    return policy.bindings.filter((b) => b.members.includes(member)).map((b) => b.role);
  }

  async secretHasVersion(secretId: string): Promise<boolean> {
    try {
      const [versions] = await this.secrets.listSecretVersions({
        parent: `projects/${this.target.projectId}/secrets/${secretId}`,
        filter: "state:ENABLED",
      });
      return versions.length > 0;
    } catch (error) {
      if ((error as { code?: number }).code === 5) return false; // NOT_FOUND: no such secret
      throw error;
    }
  }

  async firestoreIndexes(): Promise<DeployedIndex[]> {
    const [indexes] = await this.admin.listIndexes({
      parent: `projects/${this.target.projectId}/databases/${this.target.databaseId}/collectionGroups/-`,
    });
    return indexes.map((index) => ({
      collectionGroup: /collectionGroups\/([^/]+)\//.exec(index.name ?? "")?.[1] ?? "",
      fields: (index.fields ?? [])
        .filter((f) => f.fieldPath !== "__name__")
        .map((f) => {
          const mode = f.vectorConfig
            ? `VECTOR(${f.vectorConfig.dimension})`
            : f.arrayConfig
              ? String(f.arrayConfig)
              : String(f.order);
          return `${f.fieldPath}:${mode}`;
        }),
      state: String(index.state ?? "STATE_UNSPECIFIED"),
    }));
  }

  async sccNotificationTopic(): Promise<string | undefined> {
    const { organizationId, sccConfigId } = this.target;
    if (!organizationId || !sccConfigId) return undefined;
    try {
      const config = await this.get(
        `https://securitycenter.googleapis.com/v2/organizations/${organizationId}/locations/global/notificationConfigs/${sccConfigId}`,
        NotificationConfig,
      );
      return config.pubsubTopic;
    } catch (error) {
      if ((error as { status?: number }).status === 404) return undefined;
      throw error;
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.secrets.close(), this.admin.close()]);
  }
}

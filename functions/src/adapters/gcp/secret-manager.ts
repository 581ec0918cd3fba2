import { SecretManagerServiceClient } from "@google-cloud/secret-manager";
import { ConfigError, errorMessage, FerretError } from "../../domain/errors.js";
import type { SecretSource } from "../../ports/secret-source.js";

/** Secret Manager: short ids resolve in the runtime's own project, version "latest" by default. */
export class SecretManagerSecrets implements SecretSource {
  private readonly client = new SecretManagerServiceClient();

  async read(name: string): Promise<string> {
    const full = await this.resourceName(name);
    try {
      const [version] = await this.client.accessSecretVersion({ name: full });
      const data = version.payload?.data;
      if (data === undefined || data === null) throw new ConfigError(`secret ${full} has no payload`);
      return typeof data === "string" ? data : Buffer.from(data).toString("utf8");
    } catch (error) {
      if (error instanceof FerretError) throw error;
      // NOT_FOUND / PERMISSION_DENIED are configuration; anything else may pass.
      const code = (error as { code?: unknown }).code;
      const permanent = code === 5 || code === 7;
      throw new FerretError("config", `reading secret ${full} failed: ${errorMessage(error)}`, {
        retryable: !permanent,
        cause: error,
      });
    }
  }

  private async resourceName(name: string): Promise<string> {
    const withVersion = (n: string) => (n.includes("/versions/") ? n : `${n}/versions/latest`);
    if (name.startsWith("projects/")) return withVersion(name);
    const project = await this.client.getProjectId();
    return withVersion(`projects/${project}/secrets/${name}`);
  }
}

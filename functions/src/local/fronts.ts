import type { RoleName } from "../roles/index.js";
import { type GateProxy, startGateProxy } from "./gate-proxy.js";
import { checkIdToken, mintSigningKey, type SigningKey, signIdToken } from "./id-tokens.js";
import { LOCAL_IDENTITY_PROJECT } from "./identities.js";
import { type GateStats, InstanceGate } from "./instance-gate.js";
import { startPushRelay } from "./push-relay.js";
import type { FunctionSettings, TerraformSettings } from "./terraform-settings.js";

/**
 * What stands in front of the local functions where Cloud Run's front end and Pub/Sub's push
 * authentication would (decision 0052): one gate per function (ID-token check against
 * Terraform's invokers, then its instance cap: local/gate-proxy.ts), the key the stack's ID
 * tokens are signed with, and, per pushed function, the relay that adds Pub/Sub's push token.
 */
export interface Fronts {
  /** Each function's public URL: its gate. */
  urls: Record<RoleName, string>;
  /** The key the workflow's tokens are signed with, and its service account's email. */
  workflowIdentity: { key: SigningKey; email: string };
  /** Accepts `url` as a custom audience of `name` (a test routing the workflow through a proxy). */
  addAudience(name: RoleName, url: string): void;
  /** A push endpoint for `name` on `path` that reaches its gate with Pub/Sub's token. */
  pushEndpoint(name: RoleName, path: string): Promise<string>;
  stats(name: RoleName): GateStats;
  close(): Promise<void>;
}

export async function startFronts(options: {
  roles: readonly { name: RoleName }[];
  settings: Record<RoleName, FunctionSettings>;
  terraform: TerraformSettings;
  /** Where each functions-framework server listens. */
  serverUrls: Record<string, string>;
  /**
   * The port each gate listens on, taken with the servers' ports: a gate on "any free port"
   * could take a port just picked for a server that has not bound it yet.
   */
  ports: Record<string, number>;
  queueMs: number;
}): Promise<Fronts> {
  const { terraform } = options;
  const key = mintSigningKey();
  const email = (account: string) => {
    const id = terraform.accountIds[account];
    if (!id) throw new Error(`terraform/iam.tf has no service account ${account}`);
    return `${id}@${LOCAL_IDENTITY_PROJECT}.iam.gserviceaccount.com`;
  };
  const invokers = (name: RoleName) =>
    terraform.invokers[name].map((k) => (k === "allUsers" ? k : `serviceAccount:${email(k)}`));
  const audiences: Partial<Record<RoleName, string[]>> = {};
  const gates = {} as Record<RoleName, InstanceGate>;
  const urls = {} as Record<RoleName, string>;
  const servers: GateProxy[] = [];
  for (const role of options.roles) {
    const { maxInstances, concurrency } = options.settings[role.name];
    const gate = new InstanceGate(maxInstances * concurrency, options.queueMs);
    const accepted = invokers(role.name);
    const proxy = await startGateProxy({
      name: role.name,
      target: options.serverUrls[role.name] as string,
      gate,
      port: options.ports[role.name] as number,
      authorize: (req) =>
        checkIdToken(req.headers.authorization, {
          publicKeys: { [key.kid]: key.publicKeyPem },
          audiences: [urls[role.name], ...(audiences[role.name] ?? [])],
          invokers: accepted,
        }),
    });
    gates[role.name] = gate;
    urls[role.name] = proxy.url;
    servers.push(proxy);
  }
  return {
    urls,
    workflowIdentity: { key, email: email("workflow") },
    addAudience(name, url) {
      audiences[name] = [...(audiences[name] ?? []), url];
    },
    async pushEndpoint(name, path) {
      const audience = urls[name];
      const pushEmail = email("pubsubPush");
      const relay = await startPushRelay({
        target: audience,
        token: () => signIdToken(key, { audience, email: pushEmail }),
      });
      servers.push(relay);
      return `${relay.url}${path}`;
    },
    stats: (name) => gates[name].stats(),
    close: async () => {
      await Promise.allSettled(servers.map((s) => s.close()));
    },
  };
}

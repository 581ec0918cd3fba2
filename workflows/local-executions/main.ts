import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { z } from "zod";
import { signIdToken } from "../../functions/src/local/id-tokens.js";
import { type BearerIdentities, bearerTokenAccess } from "../runner/callback-server.js";
import { LocalExecutionsService } from "./service.js";

/**
 * Entry point of the local executions service process. The function URLs come from the
 * environment, exactly the variables Terraform sets as the workflow's user_env_vars.
 * `--callback-identities FILE` (JSON: bearer token → principal, and the principals allowed
 * to call back; the local stack writes it, functions/src/local/identities.ts) gives the
 * executions callback endpoints; without it a held acting call fails its execution.
 * `--id-token-key FILE` (JSON: {kid, privateKeyPem, email}; the local stack writes it) makes
 * every `auth: {type: OIDC}` request carry an ID token for `email`, the workflow's service
 * account, signed with that key (functions/src/local/id-tokens.ts).
 */
const { values } = parseArgs({
  options: {
    port: { type: "string" },
    yaml: { type: "string" },
    "callback-identities": { type: "string" },
    "id-token-key": { type: "string" },
  },
});
if (!values.port || !values.yaml) {
  process.stderr.write(
    "usage: main.ts --port N --yaml workflows/investigate.yaml [--callback-identities FILE] [--id-token-key FILE]\n",
  );
  process.exit(2);
}
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    (e): e is [string, string] => e[0].startsWith("FERRET_") && typeof e[1] === "string",
  ),
);
const identitiesFile = values["callback-identities"];
const identities = identitiesFile
  ? (JSON.parse(readFileSync(identitiesFile, "utf8")) as BearerIdentities)
  : undefined;
if (identities && (typeof identities.principals !== "object" || !Array.isArray(identities.allowed))) {
  process.stderr.write(
    `${identitiesFile}: expected {principals: {token: principal}, allowed: [principal]}\n`,
  );
  process.exit(2);
}
const keyFile = values["id-token-key"];
const tokenKey = keyFile
  ? z
      .object({ kid: z.string(), privateKeyPem: z.string(), email: z.string() })
      .parse(JSON.parse(readFileSync(keyFile, "utf8")))
  : undefined;
const service = new LocalExecutionsService({
  yamlPath: values.yaml,
  env,
  onLog: (entry) =>
    process.stdout.write(`${JSON.stringify({ severity: "INFO", component: "workflow", ...entry })}\n`),
  ...(identities ? { callbacks: bearerTokenAccess(identities) } : {}),
  ...(tokenKey
    ? { idToken: (audience: string) => signIdToken(tokenKey, { audience, email: tokenKey.email }) }
    : {}),
});
await service.listen(Number(values.port));
process.stdout.write(
  `${JSON.stringify({
    severity: "INFO",
    message: `local workflow executions listening on ${values.port}`,
    callbacks: identities ? { allowed: identities.allowed } : "none",
  })}\n`,
);
const shutdown = () => {
  service.close().finally(() => process.exit(0));
};
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);

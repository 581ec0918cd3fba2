/**
 * The web console as Terraform deploys it (terraform/console.tf, the "enable_console = true"
 * variant). Started under functions-framework with exactly the environment Terraform gives it,
 * it answers, and refuses every request that did not come through Identity-Aware Proxy; built
 * in-process from the same environment, it serves a request IAP signed for the console's
 * backend service, and refuses one signed for any other audience.
 *
 * Stand-ins: the Firestore and Pub/Sub emulators (FIRESTORE_EMULATOR_HOST, PUBSUB_EMULATOR_HOST),
 * METADATA_SERVER_DETECTION=none, Terraform's after-apply values (AFTER_APPLY: the project number
 * and the backend service's id), and, in-process only, IAP's public keys: a key pair of the
 * test's own signs the tokens, since IAP's real keys sign nothing here.
 */
import assert from "node:assert/strict";
import { generateKeyPairSync, sign } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { consoleApp } from "../../../functions/src/console/app.js";
import { buildConsoleRuntime, type ConsoleRuntime } from "../../../functions/src/console/compose.js";
import { IAP_JWT_HEADER, iapAuthenticator } from "../../../functions/src/console/identity.js";
import { freePort } from "../../../functions/src/local/free-port.js";
import { type ManagedProcess, startProcess, waitForHttp } from "../../../functions/src/local/processes.js";
import { fromRoot, repoRoot } from "../../../functions/src/platform/paths.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { AFTER_APPLY } from "./terraform-env.js";
import { type Deployment, deploymentFor, environmentOf, VARIANTS } from "./variants.js";

/** The aud IAP signs for an app behind a backend service ("Securing your app with signed headers"). */
const AUDIENCE = `/projects/${AFTER_APPLY["data.google_project.ferret.number"]}/global/backendServices/${AFTER_APPLY["google_compute_backend_service.console.generated_id"]}`;
const USER = "ana@example.com";

const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const KEYS = { parity: publicKey.export({ type: "spki", format: "pem" }).toString() };

/** A token made the way IAP makes them: ES256 with a key id, issuer IAP, the user's email. */
function iapToken(audience: string): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  const body = `${b64({ alg: "ES256", typ: "JWT", kid: "parity" })}.${b64({
    iss: "https://cloud.google.com/iap",
    aud: audience,
    sub: "accounts.google.com:1234567890",
    email: USER,
    iat: now - 5,
    exp: now + 600,
  })}`;
  const signature = sign("sha256", Buffer.from(body), { key: privateKey, dsaEncoding: "ieee-p1363" });
  return `${body}.${signature.toString("base64url")}`;
}

describe("the web console with the environment Terraform gives it", { timeout: 300_000 }, () => {
  const projectId = uniqueProjectId("parity-console");
  const logDir = mkdtempSync(join(tmpdir(), "ferret-parity-console-"));
  let deployment: Deployment;
  let env: Record<string, string>;
  let emulatorEnv: Record<string, string>;
  let proc: ManagedProcess | undefined;
  let url: string;

  before(async () => {
    const emulators = await ensureEmulators();
    const variant = VARIANTS.find((v) => v.name === "enable_console = true");
    assert.ok(variant);
    deployment = await deploymentFor(variant, projectId);
    const fn = deployment.functions.get("console");
    assert.ok(fn, "Terraform deploys the console in this variant");
    env = environmentOf(fn);
    emulatorEnv = {
      FIRESTORE_EMULATOR_HOST: emulators.firestoreHost,
      PUBSUB_EMULATOR_HOST: emulators.pubsubHost,
      METADATA_SERVER_DETECTION: "none",
    };
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const ffIndex = createRequire(import.meta.url).resolve("@google-cloud/functions-framework");
    proc = startProcess(
      "console",
      process.execPath,
      [
        "--import",
        "tsx",
        join(dirname(ffIndex), "main.js"),
        // The entry point Terraform builds (local.console.entry_point).
        "--target=console",
        "--signature-type=http",
        `--port=${port}`,
        `--source=${fromRoot("functions/src/index.ts")}`,
      ],
      {
        env: {
          ...env,
          ...emulatorEnv,
          // What a process needs to run at all, not configuration.
          ...(process.env.PATH ? { PATH: process.env.PATH } : {}),
          ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
        },
        logDir,
        cwd: repoRoot(),
      },
    );
    await waitForHttp(url, proc, 240_000);
  });

  after(async () => {
    await proc?.stop();
  });

  test("Terraform's environment is the console's: IAP identity, the backend service's audience", () => {
    assert.equal(env.FERRET_CONSOLE_AUTH, "iap");
    assert.equal(env.FERRET_CONSOLE_IAP_AUDIENCE, AUDIENCE);
    assert.equal(env.FERRET_CONSOLE_LOCAL_USER, undefined, "no local user in a deployment");
    assert.deepEqual(deployment.functions.get("console")?.secrets, {}, "no secret is mounted");
  });

  test("under functions-framework it answers, and refuses what did not come through IAP", async () => {
    const plain = await fetch(`${url}/investigations`);
    assert.equal(plain.status, 401, "no IAP assertion: refused");
    assert.match(await plain.text(), /Identity-Aware Proxy/);

    // IAP's unsigned email header is never trusted on its own.
    const unsigned = await fetch(`${url}/investigations`, {
      headers: { "x-goog-authenticated-user-email": `accounts.google.com:${USER}` },
    });
    assert.equal(unsigned.status, 401, "an unsigned identity header: refused");

    // The stylesheet ships in the same archive (console/static) and needs no identity.
    const css = await fetch(`${url}/static/console.css`);
    assert.equal(css.status, 200);
    assert.match(css.headers.get("content-type") ?? "", /text\/css/);
    await css.arrayBuffer();

    const log = readFileSync(proc?.logFile ?? "", "utf8");
    assert.doesNotMatch(
      log,
      /ConfigError/,
      `the console reported a configuration error; see ${proc?.logFile}`,
    );
  });

  describe("built in-process from the same environment", () => {
    let runtime: ConsoleRuntime;
    let server: Server;
    let local: string;

    before(async () => {
      runtime = buildConsoleRuntime({ ...env, ...emulatorEnv });
      const audience = runtime.config.console.iapAudience;
      assert.ok(audience);
      server = consoleApp({
        deps: runtime.deps,
        authenticate: iapAuthenticator(audience, async () => KEYS),
        behindProxy: runtime.config.console.auth === "iap",
      }).listen(0, "127.0.0.1");
      await new Promise<void>((resolve) => server.once("listening", () => resolve()));
      local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    after(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    });

    test("serves every page to a request IAP signed for the console's backend service", async () => {
      for (const page of ["/investigations", "/memories", "/queue", "/report"]) {
        const res = await fetch(`${local}${page}`, { headers: { [IAP_JWT_HEADER]: iapToken(AUDIENCE) } });
        const html = await res.text();
        assert.equal(res.status, 200, `${page}: ${html.slice(0, 300)}`);
        assert.ok(html.includes(USER), `${page} shows who is signed in`);
      }
    });

    test("refuses a token IAP signed for another audience", async () => {
      // The audience IAP uses when it is enabled on the Cloud Run service itself, not on the
      // load balancer's backend service: not what this deployment's IAP signs.
      const elsewhere = `/projects/${AFTER_APPLY["data.google_project.ferret.number"]}/locations/us-central1/services/ferret-console`;
      const res = await fetch(`${local}/investigations`, {
        headers: { [IAP_JWT_HEADER]: iapToken(elsewhere) },
      });
      assert.equal(res.status, 401);
      await res.arrayBuffer();
    });
  });
});

/**
 * Every function starts with exactly what Terraform gives it, for every documented variant.
 *
 * A function instance builds its runtime (configuration, adapters, tool registry) from its
 * environment on the first request (functions/src/entry/compose.ts); whatever the code
 * needs and Terraform does not give surfaces there as a ConfigError. This builds that runtime
 * in-process from the environment read out of terraform/*.tf, with the secret values from
 * fixtures/secrets.json, for each function and variant. Only the emulator hosts (standing in
 * for Firestore and Pub/Sub), METADATA_SERVER_DETECTION=none (no metadata server off Google
 * Cloud) and FERRET_LOG_LEVEL=ERROR (quiet output) are added. stack.test.ts drives a whole
 * investigation through functions-framework processes started the same way.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ENV_OVERRIDES } from "../../../functions/src/config/config.js";
import { buildConsoleRuntime, type ConsoleRuntime } from "../../../functions/src/console/compose.js";
import { buildRuntime } from "../../../functions/src/entry/compose.js";
import type { Runtime } from "../../../functions/src/entry/runtime.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { ROLES } from "../../../functions/src/roles/index.js";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";
import { AFTER_APPLY } from "./terraform-env.js";
import { deploymentFor, environmentOf, VARIANTS } from "./variants.js";

const started: Runtime[] = [];
const consoles: ConsoleRuntime[] = [];
let emulatorEnv: Record<string, string> = {};

before(async () => {
  const emulators = await ensureEmulators();
  emulatorEnv = {
    FIRESTORE_EMULATOR_HOST: emulators.firestoreHost,
    PUBSUB_EMULATOR_HOST: emulators.pubsubHost,
    METADATA_SERVER_DETECTION: "none",
    FERRET_LOG_LEVEL: "ERROR",
  };
});

after(async () => {
  // The composition root builds a PubSubEventBus; its client keeps the process alive.
  await Promise.allSettled([
    ...started.map((rt) => (rt.bus as Partial<{ close(): Promise<void> }>).close?.() ?? Promise.resolve()),
    ...consoles.map((c) => c.close()),
  ]);
});

describe("every function starts with the environment Terraform gives it", { timeout: 300_000 }, () => {
  for (const variant of VARIANTS) {
    test(variant.name, async () => {
      const deployment = await deploymentFor(variant, uniqueProjectId("parity-start"));
      // The web console is one more function when the deployment enables it (console.tf).
      const withConsole = deployment.vars.enable_console === true;
      assert.deepEqual(
        [...deployment.functions.keys()].sort(),
        [...ROLES.map((e) => e.name), ...(withConsole ? ["console"] : [])].sort(),
        "Terraform deploys every entry point",
      );
      const consoleFn = deployment.functions.get("console");
      if (consoleFn) {
        // Its own composition root (functions/src/console/compose.ts), as the instance builds it.
        const rt = buildConsoleRuntime({ ...environmentOf(consoleFn), ...emulatorEnv });
        consoles.push(rt);
        assert.equal(rt.config.console.auth, "iap");
        // IAP's audience for a backend service ("Securing your app with signed headers").
        assert.equal(
          rt.config.console.iapAudience,
          `/projects/${AFTER_APPLY["data.google_project.ferret.number"]}/global/backendServices/${AFTER_APPLY["google_compute_backend_service.console.generated_id"]}`,
        );
        assert.equal(rt.config.slack.channel, deployment.vars.slack_channel_id);
        assert.equal(rt.config.governor.maxConcurrent, deployment.vars.governor_max_concurrent);
        assert.equal(rt.config.firestore.databaseId, deployment.vars.firestore_database);
      }
      // Concurrently: the BigQuery-backed tool registries each wait for their table listing to fail
      // (no credentials here), as a cold start without dataset access would.
      const outcomes = await Promise.all(
        [...deployment.functions]
          .filter(([name]) => name !== "console")
          .map(async ([name, fn]) => {
            try {
              const rt = await buildRuntime({ ...environmentOf(fn), ...emulatorEnv });
              started.push(rt);
              return { name, rt };
            } catch (error) {
              return { name, error: `${(error as Error).name}: ${(error as Error).message}` };
            }
          }),
      );
      for (const outcome of outcomes) {
        assert.equal(outcome.error, undefined, `${outcome.name} does not start (${variant.name})`);
      }
      // What Terraform configures is what the functions run with.
      const byName = new Map(outcomes.map((o) => [o.name, o.rt]));
      const tools = (name: string): string[] => byName.get(name)?.registry.names() ?? [];
      const otx = deployment.vars.enable_otx === true;
      for (const name of ["planner", "stepExecutor", "reflector"]) {
        assert.equal(tools(name).includes("threat_intel_lookup"), otx, `${name}: threat intel tool`);
        assert.ok(tools(name).includes("log_analysis"), `${name}: log tools`);
        assert.equal(byName.get(name)?.config.logs.warehouse, "bigquery");
      }
      assert.equal(byName.get("planner")?.primaryModel.offline, false, "the planner thinks with Gemini");
      // Every function sends its spans and metrics to Google (docs/decisions/0055), keeping the
      // share of investigations the deployment asks for.
      for (const [name, rt] of byName) {
        assert.equal(rt?.config.telemetry.exporter, "google-cloud", `${name}: telemetry exporter`);
        assert.equal(rt?.config.telemetry.traceSampleRatio, deployment.vars.trace_sample_ratio, name);
      }
      // The analyst's loop: the endpoint can verify signatures and knows the analysts; the
      // worker writes to SCC exactly when the deployment enables it, and the card offers the
      // SCC buttons exactly then.
      const writeback = deployment.vars.enable_scc_writeback === true;
      assert.equal(byName.get("slackEvents")?.slackSigningSecret, "parity-test-signing-secret");
      assert.ok(byName.get("slackEvents")?.chatInteractions, "slackEvents can open the Dispute modal");
      for (const name of ["slackEvents", "analystActions"]) {
        assert.deepEqual(byName.get(name)?.config.slack.allowedUsers, deployment.vars.slack_allowed_users);
        assert.deepEqual(
          byName.get(name)?.config.slack.allowedUserGroups,
          deployment.vars.slack_allowed_user_groups,
        );
      }
      assert.equal(byName.get("analystActions")?.scc !== undefined, writeback, "analystActions: SCC client");
      assert.equal(
        byName.get("notifier")?.config.scc.analystMuteAndState,
        writeback && deployment.vars.scc_analyst_mute_and_state === true,
        "notifier: SCC buttons on the card",
      );
      assert.equal(
        byName.get("notifier")?.config.slack.claimStaleSeconds,
        Number(
          (deployment.vars.functions as Record<string, { timeout_seconds: number }>).notifier
            ?.timeout_seconds,
        ) + 60,
      );
    });
  }
});

/** Source files of the deployed code (what the archive holds and the functions load). */
function sourceText(): string {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith(".ts")) files.push(readFileSync(path, "utf8"));
    }
  };
  walk(fromRoot("functions/src"));
  return files.join("\n");
}

test("every variable and secret Terraform sets is one the code reads", async () => {
  const code = sourceText();
  for (const variant of VARIANTS) {
    const deployment = await deploymentFor(variant);
    for (const [name, fn] of deployment.functions) {
      for (const key of [...Object.keys(fn.env), ...Object.keys(fn.secrets)]) {
        const read = key in ENV_OVERRIDES || new RegExp(`\\benv\\.${key}\\b|["'\`]${key}["'\`]`).test(code);
        assert.ok(read, `${name}: Terraform sets ${key}, which no code reads (${variant.name})`);
      }
    }
  }
});

import { setTimeout as sleep } from "node:timers/promises";
import { Command, InvalidArgumentError } from "commander";
import { createFirestore } from "../adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../adapters/firestore/investigation-store.js";
import { GoogleDeploymentInventory } from "../adapters/gcp/deployment-inventory.js";
import { PubSubEventBus } from "../adapters/pubsub/event-bus.js";
import { type CheckResult, type DoctorTarget, runChecks } from "../doctor/checks.js";
import type { DeploymentInventory } from "../doctor/inventory.js";
import { checkSlack, type SlackProbe } from "../doctor/slack.js";
import { type SmokeDeps, smokeTest } from "../doctor/smoke.js";

export interface Printer {
  line(text: string): void;
}

export interface DoctorOptions extends DoctorTarget {
  databaseId: string;
  smoke: boolean;
  timeoutSeconds: number;
  /** Check Slack (bot token, channel membership, a test message); off with --no-slack. */
  slack?: boolean;
  slackChannel?: string;
}

/** What the doctor works with; `close` releases the clients. */
export interface DoctorBackend {
  inventory: DeploymentInventory;
  smoke: SmokeDeps;
  /** The Slack Web API as the deployed bot token reaches it. */
  slack?: () => Promise<SlackProbe>;
  close(): Promise<void>;
}

/** The bot token: SLACK_BOT_TOKEN when set, else the latest version of ferret-slack-bot-token. */
async function deployedSlack(projectId: string): Promise<SlackProbe> {
  const { slackProbe } = await import("../adapters/slack/slack-probe.js");
  const { readEnvironment } = await import("../config/environment.js");
  const { botToken, apiUrl } = readEnvironment(process.env).slack;
  if (botToken) return slackProbe(botToken, apiUrl);
  const { SecretManagerSecrets } = await import("../adapters/gcp/secret-manager.js");
  const token = await new SecretManagerSecrets().read(`projects/${projectId}/secrets/ferret-slack-bot-token`);
  return slackProbe(token.trim(), apiUrl);
}

export function googleDoctorBackend(opts: DoctorOptions): DoctorBackend {
  const inventory = new GoogleDeploymentInventory(opts);
  const db = createFirestore({ projectId: opts.projectId, databaseId: opts.databaseId });
  const bus = new PubSubEventBus(opts.projectId);
  return {
    inventory,
    smoke: {
      bus,
      store: new FirestoreInvestigationStore(db),
      now: () => new Date(),
      sleep: (ms) => sleep(ms),
    },
    slack: () => deployedSlack(opts.projectId),
    close: async () => {
      await Promise.allSettled([inventory.close(), bus.close(), db.terminate()]);
    },
  };
}

/** Prints each check, then what to run to fix what failed; resolves with whether all passed. */
export async function runDoctor(
  backend: DoctorBackend,
  opts: DoctorOptions,
  printer: Printer,
): Promise<boolean> {
  const results: CheckResult[] = await runChecks(backend.inventory, opts);
  if (opts.slack && backend.slack) {
    const slack = backend.slack;
    results.push(
      await checkSlack(
        {
          // Reading the token may fail (no secret version, no access): that is the check's failure.
          call: async (method, args) => (await slack()).call(method, args),
        },
        { ...(opts.slackChannel ? { channel: opts.slackChannel } : {}), postTestMessage: true },
      ),
    );
  }
  const configOk = results.every((r) => r.ok);
  if (opts.smoke && configOk && opts.organizationId) {
    printer.line(`publishing a synthetic finding to scc-findings; waiting up to ${opts.timeoutSeconds} s`);
    results.push(
      await smokeTest(backend.smoke, {
        projectId: opts.projectId,
        organizationId: opts.organizationId,
        timeoutMs: opts.timeoutSeconds * 1000,
      }),
    );
  }
  for (const r of results) {
    printer.line(`${r.ok ? "ok  " : "FAIL"}  ${r.check}: ${r.lines[0] ?? ""}`);
    for (const line of r.lines.slice(1)) printer.line(`        ${line}`);
    for (const fix of r.fixes) printer.line(`        fix: ${fix}`);
  }
  if (opts.smoke && !configOk) printer.line("synthetic finding not sent: fix the failures above first");
  if (opts.smoke && !opts.organizationId) printer.line("synthetic finding not sent: give --organization");
  // Without an organization the synthetic finding is skipped, as documented, not failed.
  const smokeRan = results.some((r) => r.check === "synthetic finding");
  return results.every((r) => r.ok) && (!opts.smoke || !opts.organizationId || smokeRan);
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive whole number");
  return n;
}

/** `ferret doctor`: is a deployed project set up as terraform/ sets it up, and does it investigate? */
export function doctorCommand(
  backend: (opts: DoctorOptions) => DoctorBackend = googleDoctorBackend,
  printer: Printer = { line: (text) => process.stdout.write(`${text}\n`) },
): Command {
  return new Command("doctor")
    .description(
      "Check a deployed project after `terraform apply`: enabled APIs, the functions and their URLs, the service accounts' roles, the secrets, the Firestore indexes, the SCC notification config, the workflow-called functions' instance caps against the governor's concurrency × the workflow's fan-out, and Slack (the bot token, its membership of the channel, a test message); then publish a synthetic finding and wait for its conclusion. Prints what is wrong and how to fix it; exits 1 when something is.",
    )
    .requiredOption("--project <id>", "the ferret project", process.env.GOOGLE_CLOUD_PROJECT)
    .option("--region <region>", "region of the functions and the workflow", "us-central1")
    .option("--organization <id>", "organization whose SCC notification config feeds ferret")
    .option("--scc-config <id>", "SCC notification config id", "ferret-findings")
    .option("--database <id>", "Firestore database id", "ferret")
    .option(
      "--slack-channel <id>",
      "the channel ferret posts to (slack_channel_id); the bot token comes from SLACK_BOT_TOKEN or the secret ferret-slack-bot-token",
      process.env.FERRET_SLACK_CHANNEL,
    )
    .option("--no-slack", "skip the Slack check (bot token, channel membership, a test message)")
    .option("--no-smoke", "skip the synthetic finding")
    .option(
      "--timeout <seconds>",
      "how long to wait for the synthetic finding's conclusion",
      positiveInt,
      900,
    )
    .addHelpText("after", "\nUses Application Default Credentials (gcloud auth application-default login).")
    .action(
      async (opts: {
        project: string;
        region: string;
        organization?: string;
        sccConfig: string;
        database: string;
        smoke: boolean;
        timeout: number;
        slack: boolean;
        slackChannel?: string;
      }) => {
        const options: DoctorOptions = {
          projectId: opts.project,
          region: opts.region,
          ...(opts.organization ? { organizationId: opts.organization, sccConfigId: opts.sccConfig } : {}),
          databaseId: opts.database,
          smoke: opts.smoke,
          timeoutSeconds: opts.timeout,
          slack: opts.slack,
          ...(opts.slackChannel ? { slackChannel: opts.slackChannel } : {}),
        };
        const b = backend(options);
        try {
          if (!(await runDoctor(b, options, printer))) process.exitCode = 1;
        } finally {
          await b.close();
        }
      },
    );
}

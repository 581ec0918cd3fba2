import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createFirestore } from "../adapters/firestore/client.js";
import { FirestoreInvestigationStore } from "../adapters/firestore/investigation-store.js";
import { createPubSub } from "../adapters/pubsub/client.js";
import { PubSubEventBus } from "../adapters/pubsub/event-bus.js";
import { parseFindingName } from "../adapters/scc/finding-reader.js";
import { blocksToPlain } from "../adapters/slack/render-plain.js";
import { policySkipReason } from "../app/ingest.js";
import { investigationTimeline, timelineLines } from "../app/timeline.js";
import { loadConfig } from "../config/config.js";
import { InvalidInputError } from "../domain/errors.js";
import { normalizeNotification, parseNotification } from "../domain/finding/finding.js";
import { type Investigation, investigationIdFor, TERMINAL_STATUSES } from "../domain/investigation.js";
import { type JsonObject, jsonBytes } from "../domain/json.js";
import { MAX_MESSAGE_BYTES } from "../entry/pubsub-message.js";
import { type DeadLetterWatch, watchDeadLetters } from "../local/dead-letters.js";
import { exportFirestoreEmulator, FIRESTORE_EXPORT_DIR } from "../local/firestore-export.js";
import { deadLetterSubscriptionName } from "../local/pubsub-setup.js";
import { type LocalStack, startLocalStack, TRACE_FILE_NAME } from "../local/stack.js";
import { fromRoot } from "../platform/paths.js";
import { TOPICS } from "../platform/topics.js";
import { readSpanFile } from "../platform/trace-file.js";
import { DEFAULT_CONSOLE_PORT } from "./console.js";
import { type DemoSlack, startDemoSlack } from "./demo-click.js";
import {
  checkBigQueryDataset,
  parseBigQueryTarget,
  readFindingNotification,
  realGoogleCalls,
  stackProjectFor,
} from "./own-project.js";
import { checkApplicationDefaultCredentials, checkModel, checkSources } from "./preflight.js";
import {
  type Printer,
  printConclusion,
  printEvent,
  printHeader,
  printPlan,
  printReflection,
  printStepResult,
} from "./progress.js";
import { LOCAL_PROJECT } from "./project.js";
import { checkLogDir, loadScenario, type ScenarioInput } from "./scenario.js";
import { terminalText } from "./terminal-text.js";

export interface InvestigateOptions {
  json: boolean;
  model: "auto" | "gemini" | "offline";
  keepRunning: boolean;
  timeoutSeconds: number;
  /** Logs to investigate with instead of the scenario's own (raw LogEntry JSON or sink rows). */
  logsDir?: string;
  /** Which finding of a file holding several (0-based; the first by default). */
  findingIndex?: number;
  /**
   * End with an analyst's click (the demo): the functions post to a Slack Web API stand-in and
   * write to an SCC stand-in, and after the verdict a configured analyst clicks Confirm.
   */
  click?: boolean;
  /** An SCC finding's full name: read from the SCC API (ADC) instead of a file. */
  finding?: string;
  /** PROJECT.DATASET of the user's Cloud Logging sink, queried instead of local logs. */
  bigquery?: string;
}

export interface InvestigateReport {
  investigation: Investigation;
  results: unknown[];
  reflections: unknown[];
  events: unknown[];
  workDir: string;
  wallMs: number;
}

/** The local stack's project when nothing real is called (the emulators take any id). */
const PROJECT_ID = LOCAL_PROJECT;

/** The run ended without an investigation: ingest skipped the finding (exit code 3). */
export class NotInvestigatedError extends Error {
  readonly exitCode = 3;
}

/**
 * Runs one investigation through the real local pipeline: publish the notification to
 * `scc-findings` on the Pub/Sub emulator, and let ingest → workflow → functions →
 * notifier do the rest while this command narrates from Firestore.
 */
export async function investigate(
  path: string | undefined,
  options: InvestigateOptions,
  printer: Printer,
): Promise<InvestigateReport> {
  const started = Date.now();
  const now = new Date();
  // Cheap refusals first: what the user typed.
  if (options.finding !== undefined && path !== undefined)
    throw new InvalidInputError("give either a scenario or notification <path>, or --finding NAME, not both");
  if (options.finding === undefined && path === undefined)
    throw new InvalidInputError(
      "nothing to investigate: give a scenario directory or notification file, or --finding organizations/…/sources/…/findings/…",
    );
  if (options.bigquery !== undefined && options.logsDir !== undefined)
    throw new InvalidInputError("--logs and --bigquery are two log sources; give one");
  const bigquery = options.bigquery !== undefined ? parseBigQueryTarget(options.bigquery) : undefined;
  if (options.finding !== undefined) parseFindingName(options.finding);
  const env = process.env;
  const projectId = stackProjectFor(env, bigquery);
  const modelEnv = { ...env, FERRET_MODEL_PROVIDER: options.model };
  // The finding and the logs are the user's: one credential check for everything that reads them.
  const needsAdc = realGoogleCalls(env, { finding: options.finding, bigquery });
  const adcLine = needsAdc.length > 0 ? await checkApplicationDefaultCredentials(needsAdc) : undefined;
  let scenario: Pick<ScenarioInput, "name" | "logsDir" | "stixBundle">;
  let notification: unknown;
  if (options.finding !== undefined) {
    notification = await readFindingNotification(options.finding, env);
    scenario = {
      name: options.finding,
      ...(options.logsDir !== undefined ? { logsDir: resolve(options.logsDir) } : {}),
    };
  } else {
    const loaded = loadScenario(
      path as string,
      options.logsDir !== undefined ? { logsDir: options.logsDir } : {},
    );
    // One finding per investigation: a file of several (domain/finding/finding-file.ts) is run finding by finding.
    const item = loaded.findings.items[options.findingIndex ?? 0];
    if (!item)
      throw new InvalidInputError(
        `${path}: ${loaded.findings.container} with no finding at ${(options.findingIndex ?? 0) + 1}`,
      );
    notification = item.payload;
    scenario = loaded;
  }
  const finding = normalizeNotification(parseNotification(notification));
  // Before the stack starts: an unreadable log directory is the user's to fix, within seconds.
  const logLines = scenario.logsDir ? checkLogDir(scenario.logsDir).lines : [];
  const id = investigationIdFor(finding.name, finding.eventTime);
  const stackEnv: Record<string, string> = {
    FERRET_MODEL_PROVIDER: options.model,
    ...(scenario.logsDir ? { FERRET_DUCKDB_DIR: scenario.logsDir } : {}),
    ...(scenario.stixBundle ? { FERRET_STIX_BUNDLE: scenario.stixBundle } : {}),
    ...(bigquery
      ? {
          FERRET_LOG_WAREHOUSE: "bigquery",
          FERRET_BIGQUERY_PROJECT: bigquery.project,
          FERRET_BIGQUERY_DATASET: bigquery.dataset,
        }
      : {}),
    // A laptop run only reads the user's finding: nothing is written back to their SCC.
    ...(options.finding !== undefined ? { FERRET_SCC_WRITEBACK: "false" } : {}),
  };
  // What the functions would refuse, refused here in a second rather than after the
  // timeout: their configuration, the message size ingest accepts, the ingest policy.
  const config = loadConfig({ env: { ...env, ...stackEnv } });
  const bytes = jsonBytes(notification);
  if (bytes > MAX_MESSAGE_BYTES) {
    throw new InvalidInputError(
      `the notification is ${bytes} bytes; ingest accepts at most ${MAX_MESSAGE_BYTES} and would dead-letter it`,
    );
  }
  const skip = policySkipReason(finding, config.ingest);
  if (skip) throw new NotInvestigatedError(`ingest skips this finding: ${skip}`);
  // What the functions would refuse minutes from now, refused in seconds with what to do.
  const checked = [
    ...(options.finding !== undefined
      ? [
          `finding: ${finding.category} on ${finding.resource.name}, event time ${finding.eventTime} (read from SCC)`,
        ]
      : []),
    ...(adcLine ? [adcLine] : []),
    checkSources(config),
    ...(bigquery ? [await checkBigQueryDataset(bigquery, projectId, finding.eventTime, env, now)] : []),
    ...(await checkModel({ provider: options.model, config, env: { ...modelEnv, ...stackEnv }, now })),
    ...(projectId !== PROJECT_ID
      ? [
          `project: ${projectId} (BigQuery jobs and Vertex calls); Firestore, Pub/Sub and the workflow stay on this machine`,
        ]
      : []),
  ];
  const workDir = fromRoot(".ferret", "runs", new Date().toISOString().replace(/[:.]/g, "-"));
  mkdirSync(workDir, { recursive: true });
  const say = (text: string) => {
    if (!options.json) printer.line(text);
  };
  say(`ferret: investigating ${scenario.name} on the local stack (work dir ${workDir})`);
  for (const line of logLines) say(`  · ${line}`);
  for (const line of checked) say(`  · ${terminalText(line)}`);
  const demo: DemoSlack | undefined = options.click ? await startDemoSlack() : undefined;
  if (demo) say("  · Slack Web API and SCC stand-ins listening (the demo ends with a click)");
  const stack = await startLocalStack({
    projectId,
    workDir,
    env: { ...stackEnv, ...demo?.env },
    progress: (line) => say(`  · ${terminalText(line)}`),
    exitOnSignal: true,
  }).catch(async (error: unknown) => {
    await demo?.close();
    throw error;
  });
  const bus = new PubSubEventBus(projectId);
  const client = createPubSub({ projectId });
  const deadLetters = watchDeadLetters(client, deadLetterSubscriptionName(TOPICS.findings));
  try {
    const store = new FirestoreInvestigationStore(createFirestore({ projectId }));
    const messageId = await bus.publish(TOPICS.findings, notification as JsonObject);
    say(`  · published the notification to ${TOPICS.findings} (message ${messageId})\n`);
    const investigation = await follow(store, id, options, printer, started, { stack, deadLetters });
    const [results, reflections, events] = await Promise.all([
      store.listStepResults(id),
      store.listReflections(id),
      store.listEvents(id),
    ]);
    const report: InvestigateReport = {
      investigation,
      results,
      reflections,
      events,
      workDir,
      wallMs: Date.now() - started,
    };
    writeFileSync(join(workDir, "investigation.json"), `${JSON.stringify(report, null, 2)}\n`);
    await waitForNotifier(store, investigation);
    if (demo) {
      if (!options.json) {
        await demo.click({
          slackEventsUrl: stack.functionUrls.slackEvents as string,
          store,
          investigation,
          printer,
        });
      }
      demo.saveCalls(join(workDir, "slack-messages.jsonl"));
      say(`Slack Web API calls written to ${join(workDir, "slack-messages.jsonl")}`);
    } else if (!options.json) printSlackThread(printer, join(workDir, "slack-messages.jsonl"));
    const timeline = investigationTimeline(readSpanFile(join(workDir, TRACE_FILE_NAME)), investigation.id);
    if (timeline) for (const line of timelineLines(timeline)) say(line);
    say(
      `Firestore documents exported to ${join(workDir, "investigation.json")}; spans in ${join(workDir, TRACE_FILE_NAME)}; process logs in ${stack.logDir}`,
    );
    if (stack.env.FIRESTORE_EMULATOR_HOST) {
      // The run's documents outlive its emulators: `ferret console`, `report`, `queue` and
      // `memories` serve this export with --run.
      await exportFirestoreEmulator(
        stack.env.FIRESTORE_EMULATOR_HOST,
        projectId,
        join(workDir, FIRESTORE_EXPORT_DIR),
      );
      say(
        `Open it in the web console: npm run ferret -- console --run ${workDir}, then http://127.0.0.1:${DEFAULT_CONSOLE_PORT}/investigations/${investigation.id} (report, queue and memories take --run too)`,
      );
    }
    if (options.keepRunning) {
      say(
        // The variables `ferret console` (and the other commands) need to serve this stack, its spans included.
        `Stack left running: FIRESTORE_EMULATOR_HOST=${stack.env.FIRESTORE_EMULATOR_HOST} PUBSUB_EMULATOR_HOST=${stack.env.PUBSUB_EMULATOR_HOST} FERRET_TRACE_FILE=${join(workDir, TRACE_FILE_NAME)} (Ctrl-C to stop)`,
      );
      await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
    }
    return report;
  } finally {
    await deadLetters.close().catch(() => {});
    await client.close();
    await bus.close();
    await stack.stop();
    await demo?.close();
  }
}

/** Why the run cannot end with an investigation, when the stack already says so. */
function stuckReason(
  watch: { stack: LocalStack; deadLetters: DeadLetterWatch },
  created: boolean,
): Error | undefined {
  // Once the investigation exists, ingest is done with the message.
  const letter = created ? undefined : watch.deadLetters.received()[0];
  if (letter) {
    // ferret's own dead letters start with the error code; invalid input is the user's to fix.
    const message = `ingest dead-lettered the notification: ${letter.reason}`;
    return letter.reason.startsWith("invalid_input:") ? new InvalidInputError(message) : new Error(message);
  }
  const crashed = watch.stack.crashed();
  if (crashed.length > 0) return new Error(`a function server stopped: ${crashed.join("; ")}`);
  return undefined;
}

async function follow(
  store: FirestoreInvestigationStore,
  id: string,
  options: InvestigateOptions,
  printer: Printer,
  started: number,
  watch: { stack: LocalStack; deadLetters: DeadLetterWatch },
): Promise<Investigation> {
  const quiet: Printer = { line: () => {} };
  const out = options.json ? quiet : printer;
  const deadline = started + options.timeoutSeconds * 1000;
  let seen = 0;
  let headerShown = false;
  while (Date.now() < deadline) {
    const inv = await store.get(id);
    const stuck = stuckReason(watch, inv !== undefined);
    if (stuck) throw stuck;
    if (inv) {
      if (!headerShown) {
        printHeader(out, inv);
        headerShown = true;
      }
      const events = await store.listEvents(id);
      for (const event of events.slice(seen)) {
        if (event.type === "planned") printPlan(out, (await store.get(id)) ?? inv);
        else if (event.type === "step_finished" && event.stepId) {
          const result = await store.getStepResult(id, event.stepId);
          if (result) printStepResult(out, result);
        } else if (event.type === "reflected") {
          const reflections = await store.listReflections(id);
          const last = reflections.at(-1);
          if (last) printReflection(out, last);
        } else printEvent(out, event);
      }
      seen = events.length;
      if (TERMINAL_STATUSES.includes(inv.status) && seen >= inv.eventSeq) {
        printConclusion(out, inv);
        return inv;
      }
    }
    await sleep(250);
  }
  throw new Error(
    `the investigation did not finish within ${options.timeoutSeconds}s; see the logs under .ferret/runs`,
  );
}

/**
 * Shows what the notifier posted (no Slack token locally, so it wrote the exact
 * chat.postMessage arguments to a file): the thread's size and its last message.
 */
function printSlackThread(printer: Printer, file: string): void {
  if (!existsSync(file)) return;
  const posts = readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { args: { blocks?: JsonObject[]; thread_ts?: string } });
  const last = posts.at(-1);
  printer.line(`\nSlack thread: ${posts.length} message(s) written to ${file}; the last one reads:`);
  for (const line of blocksToPlain(last?.args.blocks ?? [])) printer.line(`  │ ${terminalText(line)}`);
}

/** The notifier runs asynchronously; wait (briefly) until it recorded the final post. */
async function waitForNotifier(store: FirestoreInvestigationStore, inv: Investigation): Promise<void> {
  for (let i = 0; i < 60; i++) {
    if ((await store.readClaim("slack-event-posted", `${inv.id}:${inv.eventSeq}`))?.ts) return;
    await sleep(250);
  }
}

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { workflowFanout } from "../../../workflows/fanout.js";
import { capacityVerdicts } from "../doctor/capacity.js";
import { ConfigError } from "../domain/errors.js";
import { fromRoot, repoRoot } from "../platform/paths.js";
import type { TopicName } from "../platform/topics.js";
import { ROLES, type RoleName, WORKFLOW_ROLES } from "../roles/index.js";
import { startEmulators } from "./emulators.js";
import { freePort } from "./free-port.js";
import { type Fronts, startFronts } from "./fronts.js";
import { type LocalIdentities, mintLocalIdentities } from "./identities.js";
import { CLOUD_RUN_QUEUE_MS, type GateStats } from "./instance-gate.js";
import { type ManagedProcess, startProcess, waitForHttp } from "./processes.js";
import { ensureTopology } from "./pubsub-setup.js";
import { LOCAL_SWEEP_PERIOD_MS, type SweepSchedule, startSweepSchedule } from "./sweep-schedule.js";
import { type FunctionSettings, pushAckDeadlineSeconds, terraformSettings } from "./terraform-settings.js";

/**
 * The whole of ferret on one machine: the Firestore and Pub/Sub emulators, one
 * functions-framework server per entry point (separate processes, as Cloud Run runs
 * them), the local Workflows executions service running workflows/investigate.yaml,
 * push subscriptions wiring the topics to the functions, and Cloud Scheduler's sweep
 * requests every `sweepPeriodMs` (local/sweep-schedule.ts). Slack and SCC stand-ins are the
 * caller's (cli/demo-click.ts): their URLs reach the functions through `env`.
 *
 * Each function runs with a bearer token standing for its service account
 * (local/identities.ts), and the executions service runs a callback server that accepts only
 * the analystActions worker's: an acting call held for approval pauses its execution on
 * `events.await_callback` until the worker calls back, as in GCP (decision 0031).
 *
 * Each function is reached through a gate standing for Cloud Run's front end
 * (local/gate-proxy.ts): at most max_instances × concurrency requests at once, as
 * terraform/variables.tf deploys the function (local/terraform-settings.ts), the rest queued up
 * to 10 s and then refused with 429 (local/instance-gate.ts). The stack refuses to start when
 * the governor's investigations at the workflow's fan-out would not fit, as `terraform plan`
 * does (terraform/functions.tf). Push subscriptions take their acknowledgement deadlines,
 * retry policy and delivery attempts from terraform/pubsub.tf (decision 0052).
 */
export interface StackOptions {
  projectId: string;
  workDir: string;
  /** FERRET_* settings for every function (model, log directory, intel bundle…). */
  env: Record<string, string>;
  progress?: (line: string) => void;
  /** Lets tests put something (e.g. a fault-injecting proxy) between the workflow and a function. */
  routeForWorkflow?: (functionName: string, url: string) => Promise<string> | string;
  /**
   * Stop every process of the stack and exit on SIGINT/SIGTERM (the CLI). The emulators run
   * in process groups of their own, so a Ctrl-C never reaches them: without this they
   * outlive the CLI.
   */
  exitOnSignal?: boolean;
  /** How often the sweep function gets a scheduled request (default LOCAL_SWEEP_PERIOD_MS); 0: never. */
  sweepPeriodMs?: number;
  /**
   * Instance caps to run with instead of Terraform's defaults, as terraform.tfvars' `functions`
   * would set them (e.g. { stepExecutor: { maxInstances: 24 } }).
   */
  capacity?: Partial<Record<RoleName, Partial<Pick<FunctionSettings, "maxInstances" | "concurrency">>>>;
  /** How long a request waits at the instance cap before its 429 (default Cloud Run's 10 s). */
  queueMs?: number;
}

/** One function's gate: what it lets through at once and what it saw. */
export interface FunctionCapacity {
  maxInstances: number;
  concurrency: number;
  stats: GateStats;
}

/** The run directory's span file (platform/trace-file.ts). */
export const TRACE_FILE_NAME = "traces.jsonl";

export interface LocalStack {
  projectId: string;
  /** Variables a client of this stack needs (emulator hosts, project). */
  env: Record<string, string>;
  functionUrls: Record<string, string>;
  executionsUrl: string;
  logDir: string;
  /** Each function's bearer token and the callback server's mapping (only the worker may call back). */
  identities: LocalIdentities;
  /**
   * Kills one function server with `signal` (SIGKILL: no chance to finish the request it
   * serves, as when an instance is lost) and starts it again on the same port, so callers
   * holding its URL reach the new process. For fault-injection tests.
   */
  restartFunction(name: string, signal?: NodeJS.Signals): Promise<void>;
  /** Servers that exited while the stack was up, each with its exit code and log file. */
  crashed(): string[];
  /** Each function's instance cap and what its gate saw (queued, refused with 429, peak). */
  capacity(): Record<RoleName, FunctionCapacity>;
  stop(): Promise<void>;
}

const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

export async function startLocalStack(options: StackOptions): Promise<LocalStack> {
  const progress = options.progress ?? (() => {});
  // Before anything starts: caps that cannot carry the governor's investigations fail at once.
  // Every entry point, the analyst's loop included: slackEvents answers signed requests from a
  // Slack stand-in (local/slack-signer.ts), analystActions is pushed from analyst-actions.
  const entries = ROLES;
  const terraform = await terraformSettings();
  const settings = Object.fromEntries(
    entries.map((e) => [e.name, { ...terraform.functions[e.name], ...options.capacity?.[e.name] }]),
  ) as Record<RoleName, FunctionSettings>;
  // What `terraform plan` refuses (terraform/functions.tf), the stack refuses too.
  const governorMaxConcurrent = Number(
    options.env.FERRET_GOVERNOR_MAX_CONCURRENT ?? terraform.governorMaxConcurrent,
  );
  const short = capacityVerdicts(
    settings,
    governorMaxConcurrent,
    workflowFanout(readFileSync(fromRoot("workflows/investigate.yaml"), "utf8")),
  ).filter((v) => !v.ok);
  if (short.length > 0)
    throw new ConfigError(
      `the instance caps cannot carry the governor's investigations: ${short.map((v) => v.line).join("; ")}`,
    );
  const logDir = join(options.workDir, "logs");
  mkdirSync(logDir, { recursive: true });
  const started: ManagedProcess[] = [];
  let fronts: Fronts | undefined;
  let schedule: SweepSchedule | undefined;
  let stopping = false;
  let stopAll: (() => Promise<void>) | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    progress(`${signal}: stopping the emulators and function servers`);
    // While the emulators start, no server runs yet, and process exit kills the emulators
    // it started (emulators.ts); afterwards stop() takes the servers down too.
    void (stopAll?.() ?? Promise.resolve()).finally(() => process.exit(SIGNAL_EXIT[signal] ?? 1));
  };
  const signals: NodeJS.Signals[] = options.exitOnSignal ? ["SIGINT", "SIGTERM"] : [];
  for (const signal of signals) process.once(signal, onSignal);
  progress("starting the Firestore and Pub/Sub emulators");
  const emulators = await startEmulators({
    firestore: true,
    pubsub: true,
    projectId: options.projectId,
    logDir,
  }).catch((error: unknown) => {
    for (const signal of signals) process.off(signal, onSignal);
    throw error;
  });
  const stop = async () => {
    stopping = true;
    for (const signal of signals) process.off(signal, onSignal);
    await schedule?.stop().catch(() => {});
    await Promise.allSettled(started.map((p) => p.stop()));
    await fronts?.close();
    await emulators.stop();
  };
  stopAll = stop;
  const crashed = () =>
    stopping
      ? []
      : started
          .filter((p) => p.child.exitCode !== null || p.child.signalCode !== null)
          .map((p) => `${p.name} exited (${p.child.exitCode ?? p.child.signalCode}); see ${p.logFile}`);
  try {
    const clientEnv: Record<string, string> = { ...emulators.env, GOOGLE_CLOUD_PROJECT: options.projectId };
    // This process is a client of the stack too (topology setup, publishing, reading
    // Firestore): point its Google clients at the emulators before any is created.
    Object.assign(process.env, clientEnv);
    // A server port per function, a gate port per function, the executions service's, all at once
    // so that none is handed out twice.
    const allPorts = await Promise.all([
      ...entries.map(() => freePort()),
      freePort(),
      ...entries.map(() => freePort()),
    ]);
    const ports = allPorts.slice(0, entries.length + 1);
    const gatePorts = allPorts.slice(entries.length + 1);
    if (new Set([...ports, ...gatePorts]).size !== ports.length + gatePorts.length)
      throw new Error("the same free port was handed out twice; start the stack again");
    const executionsPort = ports.at(-1) as number;
    const executionsUrl = `http://127.0.0.1:${executionsPort}`;
    // Where each functions-framework server listens; callers reach it only through its gate.
    const serverUrls = Object.fromEntries(entries.map((e, i) => [e.name, `http://127.0.0.1:${ports[i]}`]));
    // Each function behind its gate, as Cloud Run admits requests (local/fronts.ts).
    const front = await startFronts({
      roles: entries,
      settings,
      terraform,
      serverUrls,
      ports: Object.fromEntries(entries.map((e, i) => [e.name, gatePorts[i] as number])),
      queueMs: options.queueMs ?? CLOUD_RUN_QUEUE_MS,
    });
    fronts = front;
    const functionUrls: Record<string, string> = front.urls;
    // The package exports no subpath for its CLI; it sits next to the main module.
    const ffIndex = createRequire(import.meta.url).resolve("@google-cloud/functions-framework");
    const ffMain = join(dirname(ffIndex), "main.js");
    const identities = mintLocalIdentities();
    // The executions process reads the mapping from a file only this user can read, so the
    // tokens stay out of the workflow's environment (sys.get_env) and off its command line.
    const identitiesFile = join(options.workDir, "callback-identities.json");
    writeFileSync(identitiesFile, JSON.stringify(identities.callbacks), { mode: 0o600 });
    // The key the executions process signs the workflow's ID tokens with, for its service account.
    const tokenKeyFile = join(options.workDir, "workflow-id-token-key.json");
    writeFileSync(
      tokenKeyFile,
      JSON.stringify({
        kid: front.workflowIdentity.key.kid,
        privateKeyPem: front.workflowIdentity.key.privateKeyPem,
        email: front.workflowIdentity.email,
      }),
      { mode: 0o600 },
    );
    const functionEnv: NodeJS.ProcessEnv = {
      ...process.env,
      ...clientEnv,
      ...options.env,
      FERRET_WORKFLOWS_URL: executionsUrl,
      FERRET_CHAT_FILE: join(options.workDir, "slack-messages.jsonl"),
      // Every function appends its spans here; one investigation's spans share one trace id.
      FERRET_TRACE_FILE: join(options.workDir, TRACE_FILE_NAME),
      FERRET_LOG_LEVEL: options.env.FERRET_LOG_LEVEL ?? "INFO",
    };
    const route = async (name: string) => {
      const url = functionUrls[name] as string;
      const routed = options.routeForWorkflow ? await options.routeForWorkflow(name, url) : url;
      // A URL a test routes the workflow through is accepted as the function's custom audience
      // (https://cloud.google.com/run/docs/configuring/custom-audiences).
      if (routed !== url) front.addAudience(name as RoleName, routed);
      return routed;
    };
    progress(`starting ${entries.length} function servers under functions-framework`);
    const launch = (entry: (typeof entries)[number], i: number): ManagedProcess =>
      startProcess(
        entry.name,
        process.execPath,
        [
          "--import",
          "tsx",
          ffMain,
          `--target=${entry.name}`,
          `--signature-type=${entry.trigger === "http" ? "http" : "cloudevent"}`,
          `--port=${ports[i]}`,
          `--source=${fromRoot("functions/src/index.ts")}`,
        ],
        {
          env: { ...functionEnv, FERRET_LOCAL_IDENTITY_TOKEN: identities.tokens[entry.name] },
          logDir,
          cwd: repoRoot(),
        },
      );
    entries.forEach((entry, i) => {
      started.push(launch(entry, i));
    });
    const restartFunction = async (name: string, signal: NodeJS.Signals = "SIGKILL") => {
      const i = entries.findIndex((e) => e.name === name);
      const slot = started.findIndex((p) => p.name === name);
      const old = started[slot];
      const entry = entries[i];
      if (!old || !entry) throw new Error(`no function server named ${name}`);
      if (old.child.exitCode === null && old.child.signalCode === null) {
        const exited = new Promise<void>((resolve) => old.child.once("exit", () => resolve()));
        old.child.kill(signal);
        await exited;
      }
      const fresh = launch(entry, i);
      started[slot] = fresh;
      await waitForHttp(serverUrls[name] as string, fresh);
    };
    // Each workflow role's URL, under the variable the YAML reads it from (sys.get_env).
    const workflowUrls: Record<string, string> = {};
    for (const role of WORKFLOW_ROLES) workflowUrls[role.urlEnv] = await route(role.name);
    const executions = startProcess(
      "workflow-executions",
      process.execPath,
      [
        "--import",
        "tsx",
        fromRoot("workflows/local-executions/main.ts"),
        "--port",
        String(executionsPort),
        "--yaml",
        fromRoot("workflows/investigate.yaml"),
        "--callback-identities",
        identitiesFile,
        "--id-token-key",
        tokenKeyFile,
      ],
      {
        env: {
          ...process.env,
          ...workflowUrls,
          // The workflow waits as long as the functions say a request lasts (user_env_vars in Terraform).
          ...(options.env.FERRET_APPROVAL_TIMEOUT_SECONDS
            ? { FERRET_APPROVAL_TIMEOUT_SECONDS: options.env.FERRET_APPROVAL_TIMEOUT_SECONDS }
            : {}),
        },
        logDir,
        cwd: repoRoot(),
      },
    );
    started.push(executions);
    await Promise.all([
      ...started.filter((p) => p !== executions).map((p) => waitForHttp(serverUrls[p.name] as string, p)),
      waitForHttp(`${executionsUrl}/healthz`, executions),
    ]);
    progress("wiring Pub/Sub push subscriptions to the functions");
    const pushPath = (topic: string) => `/projects/${options.projectId}/topics/${topic}`;
    // Each push reaches its function through a relay that adds the OIDC token Pub/Sub would.
    const pushEndpoints: Partial<Record<TopicName, string>> = {};
    for (const e of entries)
      if (e.trigger === "pubsub")
        pushEndpoints[e.topic] = await front.pushEndpoint(e.name, pushPath(e.topic));
    await ensureTopology(options.projectId, {
      // Each Pub/Sub-fed entry point gets its topic pushed to it, as Terraform's push subscriptions do.
      pushEndpoints,
      ackDeadlines: Object.fromEntries(
        entries.flatMap((e) =>
          e.trigger === "pubsub" ? [[e.topic, pushAckDeadlineSeconds(settings[e.name].timeoutSeconds)]] : [],
        ),
      ),
      retryPolicy: terraform.push,
      maxDeliveryAttempts: terraform.push.maxDeliveryAttempts,
    });
    const sweepPeriodMs = options.sweepPeriodMs ?? LOCAL_SWEEP_PERIOD_MS;
    if (sweepPeriodMs > 0) {
      progress(`scheduling a sweep every ${sweepPeriodMs / 1_000} s`);
      schedule = startSweepSchedule(options.projectId, sweepPeriodMs, progress);
    }
    return {
      projectId: options.projectId,
      env: clientEnv,
      functionUrls,
      executionsUrl,
      logDir,
      identities,
      restartFunction,
      crashed,
      capacity: () =>
        Object.fromEntries(
          entries.map((e) => [
            e.name,
            {
              maxInstances: settings[e.name].maxInstances,
              concurrency: settings[e.name].concurrency,
              stats: front.stats(e.name),
            },
          ]),
        ) as Record<RoleName, FunctionCapacity>,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

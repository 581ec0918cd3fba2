import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadConfig } from "../config/config.js";
import { ConfigError, InvalidInputError } from "../domain/errors.js";
import { type EmulatorStack, startEmulators } from "../local/emulators.js";
import {
  exportedProject,
  FIRESTORE_EXPORT_DIR,
  importableExport,
  newestExportedRun,
} from "../local/firestore-export.js";
import { fromRoot } from "../platform/paths.js";

/** The local stack's project (functions/src/cli/investigate.ts), the default against an emulator. */
export const LOCAL_PROJECT = "ferret-local";

/**
 * The Firestore database Terraform creates (terraform/variables.tf, `firestore_database`'s
 * default; test/unit/cli/operator-data.test.ts keeps the two equal). The functions are told
 * its name (FERRET_FIRESTORE_DATABASE); an operator at a terminal usually is not.
 */
export const TERRAFORM_DATABASE = "ferret";

/**
 * The project an operator command works on: GOOGLE_CLOUD_PROJECT, or with
 * FIRESTORE_EMULATOR_HOST set, the local stack's.
 */
export function projectFromEnv(env: NodeJS.ProcessEnv): string {
  const projectId =
    env.GOOGLE_CLOUD_PROJECT ??
    env.GCLOUD_PROJECT ??
    (env.FIRESTORE_EMULATOR_HOST ? LOCAL_PROJECT : undefined);
  if (!projectId) {
    throw new ConfigError(
      "no Firestore to read: after `npm run demo` or `ferret investigate`, pass --run (the newest run: --run latest, or a directory under .ferret/runs); against a deployment set GOOGLE_CLOUD_PROJECT; or set FIRESTORE_EMULATOR_HOST for a running emulator",
    );
  }
  // Against an emulator there is no metadata server; without this, google-auth probes for one and warns.
  if (env.FIRESTORE_EMULATOR_HOST) process.env.METADATA_SERVER_DETECTION ??= "none";
  return projectId;
}

/** Where an operator command (report, queue, memories, sweep) reads and writes. */
export interface OperatorData {
  projectId: string;
  databaseId: string;
  /** Said before the command's output (which run, which database). */
  source: string;
  /** Stops the emulators started for a run's export; nothing otherwise. */
  stop(): Promise<void>;
}

export interface OperatorDataOptions {
  /** A run directory whose Firestore export to serve, or "latest" for the newest. */
  run?: string;
  /** The Firestore database id, against a deployment. */
  database?: string;
}

/**
 * The data an operator command works on:
 * - `--run DIR` (or `--run latest`): a finished run's Firestore export (`npm run demo` and
 *   `ferret investigate` leave one), served by emulators started for the command, as
 *   `ferret console --run` does;
 * - FIRESTORE_EMULATOR_HOST: a running emulator (`ferret investigate --keep-running`);
 * - otherwise the deployment in GOOGLE_CLOUD_PROJECT, in the database Terraform creates
 *   ("ferret") unless --database or FERRET_FIRESTORE_DATABASE names another.
 */
export async function openOperatorData(
  env: NodeJS.ProcessEnv,
  options: OperatorDataOptions,
): Promise<OperatorData> {
  if (options.run !== undefined) {
    const runDir =
      options.run === "latest" ? newestExportedRun(fromRoot(".ferret", "runs")) : resolve(options.run);
    const exportDir = runDir ? join(runDir, FIRESTORE_EXPORT_DIR) : undefined;
    const exported = exportDir ? importableExport(exportDir) : undefined;
    if (!runDir || !exportDir || !exported) {
      throw new InvalidInputError(
        runDir
          ? `${runDir} has no ${FIRESTORE_EXPORT_DIR}/: runs of \`npm run demo\` and \`ferret investigate\` leave one`
          : "no run to read: run `npm run demo` first",
      );
    }
    const projectId = exportedProject(exportDir, LOCAL_PROJECT);
    const logDir = join(runDir, "cli-emulators");
    mkdirSync(logDir, { recursive: true });
    const emulators: EmulatorStack = await startEmulators({
      projectId,
      logDir,
      firestoreImportDir: exported,
      env: {},
    });
    // The Google client libraries find the emulators in this process's environment.
    Object.assign(process.env, emulators.env, { METADATA_SERVER_DETECTION: "none" });
    return {
      projectId,
      databaseId: "(default)",
      source: `run ${runDir}`,
      stop: () => emulators.stop(),
    };
  }
  const projectId = projectFromEnv(env);
  const config = loadConfig({ env });
  if (env.FIRESTORE_EMULATOR_HOST) {
    const databaseId = options.database ?? config.firestore.databaseId;
    return {
      projectId,
      databaseId,
      source: `the emulator at ${env.FIRESTORE_EMULATOR_HOST}`,
      stop: async () => {},
    };
  }
  const named = env.FERRET_FIRESTORE_DATABASE !== undefined || config.firestore.databaseId !== "(default)";
  const databaseId = options.database ?? (named ? config.firestore.databaseId : TERRAFORM_DATABASE);
  return {
    projectId,
    databaseId,
    source: `project ${projectId}, Firestore database ${databaseId}`,
    stop: async () => {},
  };
}

/** The --run and --database options every operator command takes. */
export const OPERATOR_DATA_HELP = `
Data: --run DIR (or --run latest) reads a finished run's Firestore export (\`npm run demo\` and
\`ferret investigate\` leave one under .ferret/runs/) on emulators started for the command.
With FIRESTORE_EMULATOR_HOST set it reads that emulator. Otherwise it reads the deployment in
GOOGLE_CLOUD_PROJECT, in the Firestore database Terraform creates ("${TERRAFORM_DATABASE}") unless
--database or FERRET_FIRESTORE_DATABASE names another.`;

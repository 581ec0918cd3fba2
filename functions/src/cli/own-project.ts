import { readEnvironment } from "../config/environment.js";
import { ConfigError, FerretError, InvalidInputError } from "../domain/errors.js";
import type { JsonObject } from "../domain/json.js";
import { LOG_TABLES } from "../sql/log-schema.js";
import { checkDataset } from "./preflight.js";
import { LOCAL_PROJECT } from "./project.js";

/**
 * `ferret investigate` on the user's own project from a laptop (issue 29): the finding read by
 * name from the SCC API, the logs from their BigQuery sink, the model their Gemini key or Vertex;
 * state, events and the workflow stay on the emulators and the local runner. What is read here
 * is read with the user's application default credentials, before the stack starts.
 */

type Env = Readonly<Record<string, string | undefined>>;

export interface BigQueryTarget {
  project: string;
  dataset: string;
}

// Project ids (with an optional domain prefix, "example.com:proj") and dataset ids as BigQuery names them.
const TARGET = /^((?:[a-z][a-z0-9.-]*[a-z0-9]:)?[a-z][a-z0-9-]{4,28}[a-z0-9])\.([A-Za-z0-9_]{1,1024})$/;

/** `--bigquery project.dataset`, the dataset the Cloud Logging sink writes to. */
export function parseBigQueryTarget(value: string): BigQueryTarget {
  const match = TARGET.exec(value.trim());
  if (!match) {
    throw new InvalidInputError(
      `--bigquery ${JSON.stringify(value.slice(0, 200))} is not PROJECT.DATASET (e.g. my-project.scc_logs: the dataset your Cloud Logging sink writes to)`,
    );
  }
  return { project: match[1] as string, dataset: match[2] as string };
}

/**
 * The project the local stack's functions run as. The emulators take any id, so this is the
 * user's: GOOGLE_CLOUD_PROJECT when set (where BigQuery jobs run and Vertex is billed), else the
 * log dataset's project, else a local placeholder — when nothing real is called at all.
 */
export function stackProjectFor(env: Env, bigquery: BigQueryTarget | undefined): string {
  const environment = readEnvironment(env);
  return environment.projectId ?? bigquery?.project ?? LOCAL_PROJECT;
}

/** What of `--finding` and `--bigquery` goes to Google (rather than to a loopback stand-in). */
export function realGoogleCalls(
  env: Env,
  options: { finding?: string | undefined; bigquery?: BigQueryTarget | undefined },
): string[] {
  const environment = readEnvironment(env);
  return [
    ...(options.finding && !environment.sccApiEndpoint ? ["reading the finding from SCC"] : []),
    ...(options.bigquery && !environment.bigqueryApiEndpoint ? ["querying BigQuery"] : []),
  ];
}

/** The finding as the SCC API returns it, `{finding, resource}`: what a notification carries. */
export async function readFindingNotification(name: string, env: Env): Promise<JsonObject> {
  const environment = readEnvironment(env);
  const [{ readFinding }, { localSccClientOptions }] = await Promise.all([
    import("../adapters/scc/finding-reader.js"),
    import("../adapters/scc/local-endpoint.js"),
  ]);
  const options = environment.sccApiEndpoint ? await localSccClientOptions(environment.sccApiEndpoint) : {};
  return readFinding(name, options);
}

/**
 * The log dataset's tables and the time they cover against the finding's event time, from
 * table metadata (free); jobs would run in `jobProject`.
 */
export async function checkBigQueryDataset(
  target: BigQueryTarget,
  jobProject: string,
  eventTime: string,
  env: Env,
  now: Date,
): Promise<string> {
  const environment = readEnvironment(env);
  const [{ createBigQueryClient, localBigQueryOptions }, { describeSinkTables }] = await Promise.all([
    import("../adapters/bigquery/client.js"),
    import("../adapters/bigquery/sink-coverage.js"),
  ]);
  const client = createBigQueryClient({
    jobProject,
    maxRetries: 1,
    ...(environment.bigqueryApiEndpoint ? localBigQueryOptions(environment.bigqueryApiEndpoint) : {}),
  });
  const name = `${target.project}.${target.dataset}`;
  let tables: Awaited<ReturnType<typeof describeSinkTables>>;
  try {
    tables = await describeSinkTables(client, target.project, target.dataset, now.getTime());
  } catch (error) {
    if (error instanceof FerretError) throw error;
    const code = error && typeof error === "object" ? Reflect.get(error, "code") : undefined;
    const message = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
    if (code === 404)
      throw new ConfigError(
        `--bigquery ${name}: BigQuery has no such dataset (${message}). \`bq ls --project_id=${target.project}\` lists its datasets; the sink's destination is in \`gcloud logging sinks describe SINK\`.`,
      );
    if (code === 401 || code === 403)
      throw new ConfigError(
        `--bigquery ${name}: BigQuery refused to list its tables (${message}). Your account needs roles/bigquery.dataViewer on the dataset and roles/bigquery.jobUser on ${jobProject} (where the queries run).`,
      );
    throw new ConfigError(`--bigquery ${name}: could not read the dataset's tables: ${message}`);
  }
  return checkDataset(
    name,
    tables,
    eventTime,
    LOG_TABLES.map((t) => t.name),
  );
}

import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fromRoot } from "../../functions/src/platform/paths.js";

/**
 * A stand-in for bigquery.googleapis.com on 127.0.0.1, for `ferret investigate --bigquery`
 * (the CLI's pre-flight and the stepExecutor's warehouse, pointed at it with
 * FERRET_BIGQUERY_API_ENDPOINT). It serves one dataset from resources given as the API sends
 * them (recorded ones under test/fixtures/real/bigquery/, or the hand-written replay fixtures
 * checked against them) and answers query jobs the way the service does for a statement over
 * empty partitions:
 *
 * - tables.list / tables.get: the given resources; an unknown table or dataset is 404 with
 *   BigQuery's error body (test/fixtures/bigquery/errors/not-found.json's shape).
 * - jobs.insert with `configuration.dryRun`: a DONE job whose statistics say what the engine
 *   read — statementType, and referencedTables for each backquoted `project.dataset.table` of
 *   the statement (the guard qualifies every table that way; a table that does not exist is
 *   the service's 404 "Not found: Table …"). The requests are recorded, so tests check what
 *   ferret sent (the dry run first, maximumBytesBilled, the job project).
 * - jobs.insert (real): the recorded finished job (job-get-select.json, the request's
 *   jobReference and query echoed as the service echoes them: an envelope adaptation);
 *   jobs.getQueryResults: complete, zero rows.
 *
 * Every request is recorded (method, path, query string, body) for assertions.
 */

export interface BigQueryRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

export interface BigQueryDataset {
  project: string;
  dataset: string;
  /** The tables.list body. */
  list: Record<string, unknown>;
  /** tables.get bodies by table id. */
  tables: Record<string, Record<string, unknown>>;
}

const PREFIX = "/bigquery/v2/projects/";

function realJob(): Record<string, unknown> {
  return JSON.parse(
    readFileSync(fromRoot("test/fixtures/real/bigquery/job-get-select.json"), "utf8"),
  ) as Record<string, unknown>;
}

function notFound(message: string) {
  return {
    status: 404,
    body: {
      error: {
        code: 404,
        message,
        errors: [{ message, domain: "global", reason: "notFound" }],
        status: "NOT_FOUND",
      },
    },
  };
}

function invalid(message: string) {
  return {
    status: 400,
    body: {
      error: {
        code: 400,
        message,
        errors: [{ message, domain: "global", reason: "invalid" }],
        status: "INVALID_ARGUMENT",
      },
    },
  };
}

export class BigQueryStandIn {
  readonly requests: BigQueryRequest[] = [];

  private constructor(
    private readonly server: Server,
    private readonly data: BigQueryDataset,
  ) {}

  static async start(data: BigQueryDataset): Promise<BigQueryStandIn> {
    const server = createServer();
    const standIn = new BigQueryStandIn(server, data);
    server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      void standIn.handle(req).then(({ status, body }) => {
        res.writeHead(status, { "content-type": "application/json; charset=UTF-8" });
        res.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return standIn;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Query jobs (dry runs included) the stand-in was asked to create. */
  jobs(): { project: string; dryRun: boolean; configuration: Record<string, unknown> }[] {
    return this.requests
      .filter((r) => r.method === "POST" && /^[^/]+\/jobs$/.test(r.path))
      .map((r) => {
        const configuration = (r.body as { configuration?: Record<string, unknown> }).configuration ?? {};
        return {
          project: r.path.split("/")[0] as string,
          dryRun: configuration.dryRun === true,
          configuration,
        };
      });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = url.pathname.startsWith(PREFIX) ? url.pathname.slice(PREFIX.length) : url.pathname;
    const request: BigQueryRequest = {
      method: req.method ?? "GET",
      path,
      query: Object.fromEntries(url.searchParams),
      body: text ? (JSON.parse(text) as unknown) : undefined,
    };
    this.requests.push(request);
    const { project, dataset } = this.data;
    const datasetPath = `${project}/datasets/${dataset}/tables`;
    if (request.method === "GET" && path === datasetPath) return { status: 200, body: this.data.list };
    if (request.method === "GET" && path.startsWith(`${datasetPath}/`)) {
      const table = decodeURIComponent(path.slice(datasetPath.length + 1));
      const body = this.data.tables[table];
      return body ? { status: 200, body } : notFound(`Not found: Table ${project}:${dataset}.${table}`);
    }
    if (request.method === "GET" && /\/datasets\/[^/]+\/tables/.test(path))
      return notFound(
        `Not found: Dataset ${path.split("/datasets/")[0]}:${path.split("/datasets/")[1]?.split("/")[0]}`,
      );
    if (request.method === "POST" && /^[^/]+\/jobs$/.test(path)) return this.insertJob(request);
    const results = /^([^/]+)\/queries\/([^/]+)$/.exec(path);
    if (request.method === "GET" && results)
      return {
        status: 200,
        body: {
          kind: "bigquery#getQueryResultsResponse",
          jobReference: {
            projectId: results[1],
            jobId: results[2],
            location: request.query.location ?? "US",
          },
          schema: { fields: [] },
          totalRows: "0",
          jobComplete: true,
          cacheHit: false,
        },
      };
    const job = /^([^/]+)\/jobs\/([^/]+)$/.exec(path);
    if (request.method === "GET" && job) {
      const answer = realJob();
      answer.jobReference = { projectId: job[1], jobId: job[2], location: "US" };
      return { status: 200, body: answer };
    }
    return invalid(`the stand-in does not answer ${request.method} ${path}`);
  }

  private insertJob(request: BigQueryRequest): { status: number; body: unknown } {
    const body = request.body as {
      jobReference?: Record<string, unknown>;
      configuration?: { dryRun?: boolean; query?: { query?: string } };
    };
    const query = body.configuration?.query;
    const sql = query?.query ?? "";
    const referenced = [...sql.matchAll(/`([^`.]+)\.([^`.]+)\.([^`.]+)`/g)].map((m) => ({
      projectId: m[1] as string,
      datasetId: m[2] as string,
      tableId: m[3] as string,
    }));
    for (const t of referenced) {
      const known =
        t.projectId === this.data.project && t.datasetId === this.data.dataset && this.data.tables[t.tableId];
      if (!known)
        return notFound(
          `Not found: Table ${t.projectId}:${t.datasetId}.${t.tableId} was not found in location US`,
        );
    }
    const jobProject = request.path.split("/")[0] as string;
    if (body.configuration?.dryRun) {
      return {
        status: 200,
        body: {
          kind: "bigquery#job",
          configuration: { ...body.configuration, jobType: "QUERY" },
          jobReference: { projectId: jobProject, location: "US" },
          statistics: {
            creationTime: String(Date.now()),
            totalBytesProcessed: "1048576",
            query: {
              totalBytesProcessed: "1048576",
              totalBytesBilled: "0",
              totalBytesProcessedAccuracy: "PRECISE",
              cacheHit: false,
              statementType: "SELECT",
              referencedTables: referenced,
            },
          },
          status: { state: "DONE" },
        },
      };
    }
    const answer = realJob();
    answer.jobReference = { ...body.jobReference, projectId: jobProject, location: "US" };
    answer.configuration = { ...(answer.configuration as Record<string, unknown>), ...body.configuration };
    return { status: 200, body: answer };
  }
}

/** A stand-in dataset from recorded bodies under test/fixtures/real/bigquery/. */
export function recordedDataset(
  project: string,
  dataset: string,
  listFile: string,
  tableFiles: Record<string, string>,
): BigQueryDataset {
  const read = (file: string) =>
    JSON.parse(readFileSync(fromRoot("test/fixtures/real/bigquery", file), "utf8")) as Record<
      string,
      unknown
    >;
  return {
    project,
    dataset,
    list: read(listFile),
    tables: Object.fromEntries(Object.entries(tableFiles).map(([name, file]) => [name, read(file)])),
  };
}

/**
 * A Cloud Logging sink's dataset, from the hand-written replay fixtures (test/fixtures/bigquery/,
 * checked against the recorded ones), with the creation and last-modified times this test's
 * dataset has (hand-written: the span the sink has been writing).
 */
export function sinkDataset(from: string, to: string): BigQueryDataset {
  const read = (file: string) =>
    JSON.parse(readFileSync(fromRoot("test/fixtures/bigquery", file), "utf8")) as Record<string, unknown>;
  const span = { creationTime: String(Date.parse(from)), lastModifiedTime: String(Date.parse(to)) };
  const activity = { ...read("table-activity.json"), ...span };
  const syslog = { ...read("table-syslog.json"), ...span };
  const entry = (t: Record<string, unknown>) => ({
    kind: "bigquery#table",
    id: `acme-logs:scc_logs.${(t.tableReference as { tableId: string }).tableId}`,
    tableReference: t.tableReference,
    type: "TABLE",
    creationTime: span.creationTime,
  });
  return {
    project: "acme-logs",
    dataset: "scc_logs",
    list: {
      kind: "bigquery#tableList",
      etag: "c2luay1kYXRhc2V0",
      tables: [entry(activity), entry(syslog)],
      totalItems: 2,
    },
    tables: { cloudaudit_googleapis_com_activity: activity, syslog },
  };
}

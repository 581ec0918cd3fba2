import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import {
  createBigQueryClient,
  localBigQueryOptions,
} from "../../../functions/src/adapters/bigquery/client.js";
import { describeSinkTables } from "../../../functions/src/adapters/bigquery/sink-coverage.js";
import {
  FindingMismatchError,
  parseFindingName,
  readFinding,
} from "../../../functions/src/adapters/scc/finding-reader.js";
import {
  checkBigQueryDataset,
  parseBigQueryTarget,
  stackProjectFor,
} from "../../../functions/src/cli/own-project.js";
import { openOperatorData, TERRAFORM_DATABASE } from "../../../functions/src/cli/project.js";
import { ConfigError, InvalidInputError, NotFoundError } from "../../../functions/src/domain/errors.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { type SccStandIn, startSccStandIn } from "../../../functions/src/local/scc-stand-in.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { BigQueryStandIn, recordedDataset, sinkDataset } from "../../helpers/bigquery-stand-in.js";
import { loadTerraform } from "../terraform/hcl.js";

/**
 * `ferret investigate --finding … --bigquery …` on the user's own project (issue 29): the
 * finding read by name through the official SCC client, the log dataset checked against the
 * finding's event time, the stack's project the user's — each against a stand-in that answers
 * as the API does (functions/src/local/scc-stand-in.ts from the client's own protos, with real
 * findings from test/fixtures/real/scc/; test/helpers/bigquery-stand-in.ts with recorded
 * BigQuery bodies from test/fixtures/real/bigquery/).
 */
process.env.METADATA_SERVER_DETECTION = "none";

const scc = (name: string) =>
  JSON.parse(readFileSync(fromRoot("test/fixtures/real/scc", `${name}.json`), "utf8")) as JsonObject & {
    finding: JsonObject & { name: string; eventTime: string };
  };
const BAD_IP = scc("sra-etd-bad-ip");
// Recorded with its ids redacted to placeholders, which are not finding names by the grammar
// (domain/finding/finding-name.ts): numbers and an id stand in for them here.
const CHOKEPOINT = JSON.parse(
  JSON.stringify(scc("secops-chokepoint-firewall"))
    .replaceAll("organizations/ORGANIZATION_ID", "organizations/1234567890")
    .replaceAll("sources/SOURCE_ID", "sources/987654321")
    .replaceAll("findings/FINDING_ID", "findings/c0ffee0123456789"),
) as typeof BAD_IP;

describe("finding names and dataset targets", () => {
  it("reads v1 and v2 names under organizations, folders and projects", () => {
    assert.deepEqual(parseFindingName(BAD_IP.finding.name), {
      name: BAD_IP.finding.name,
      parent: "organizations/0000000000000/sources/0000000000000000000",
      version: "v1",
      scope: "organizations/0000000000000",
    });
    const v2 = parseFindingName("projects/acme-sec/sources/123/locations/europe-west1/findings/abc");
    assert.equal(v2.version, "v2");
    assert.equal(v2.parent, "projects/acme-sec/sources/123/locations/europe-west1");
    assert.equal(parseFindingName("folders/42/sources/7/findings/f").scope, "folders/42");
    assert.throws(() => parseFindingName("organizations/1/findings/x"), InvalidInputError);
    assert.throws(() => parseFindingName("https://console.cloud.google.com/…"), /not an SCC finding name/);
    // Issue 35: each segment has its documented character set (before: anything but a slash).
    assert.throws(
      () => parseFindingName('organizations/1/sources/2/findings/a" OR name:"'),
      /1 to 32 letters or digits/,
    );
    assert.throws(() => parseFindingName("organizations/1/sources/-/findings/a"), /source id is a number/);
    assert.throws(() => parseFindingName("organizations/1/sources/2/findings/a".padEnd(70, "b")), /1 to 32/);
  });

  it("--bigquery takes PROJECT.DATASET", () => {
    assert.deepEqual(parseBigQueryTarget("acme-logs.scc_logs"), {
      project: "acme-logs",
      dataset: "scc_logs",
    });
    assert.deepEqual(parseBigQueryTarget("example.com:acme-logs.scc"), {
      project: "example.com:acme-logs",
      dataset: "scc",
    });
    assert.throws(() => parseBigQueryTarget("scc_logs"), /is not PROJECT\.DATASET/);
    assert.throws(() => parseBigQueryTarget("acme-logs.scc.logs"), InvalidInputError);
  });

  it("the stack runs as the user's project, never a forced one", () => {
    const target = { project: "acme-logs", dataset: "scc_logs" };
    assert.equal(stackProjectFor({ GOOGLE_CLOUD_PROJECT: "acme-sec" }, target), "acme-sec");
    assert.equal(stackProjectFor({}, target), "acme-logs");
    assert.equal(stackProjectFor({ GCLOUD_PROJECT: "acme-old" }, undefined), "acme-old");
    assert.equal(stackProjectFor({}, undefined), "ferret-local");
  });
});

describe("readFinding through the official client, against the SCC stand-in", () => {
  let standIn: SccStandIn;
  before(async () => {
    standIn = await startSccStandIn({
      findings: [BAD_IP, CHOKEPOINT],
      deniedParents: ["organizations/999/sources/1"],
    });
  });
  after(() => standIn.close());

  it("a v1 finding (Event Threat Detection) comes back as the API's JSON, field for field", async () => {
    const read = await readFinding(BAD_IP.finding.name, standIn.clientOptions);
    assert.deepEqual(read, { finding: BAD_IP.finding });
    const call = standIn.calls.at(-1);
    assert.equal(call?.version, "v1");
    assert.deepEqual(
      { parent: call?.request.parent, filter: call?.request.filter },
      {
        parent: "organizations/0000000000000/sources/0000000000000000000",
        filter: `name="${BAD_IP.finding.name}"`,
      },
    );
  });

  it("a v2 finding (with its location) goes to the v2 API", async () => {
    const read = (await readFinding(CHOKEPOINT.finding.name, standIn.clientOptions)) as {
      finding: Record<string, unknown>;
    };
    assert.equal(standIn.calls.at(-1)?.version, "v2");
    const want = CHOKEPOINT.finding as Record<string, unknown>;
    for (const key of ["name", "parent", "resourceName", "state", "category", "severity", "description"])
      assert.deepEqual(read.finding[key], want[key], key);
    assert.equal(Date.parse(String(read.finding.eventTime)), Date.parse(String(want.eventTime)));
    assert.deepEqual(read.finding.groupMemberships, want.groupMemberships);
    // Fields newer than the client's protos (@google-cloud/security-center 9.3.1) do not survive
    // its decoding, from the stand-in as from the service: ferret sees what the client sees.
    for (const newer of ["domains", "cloudProvider", "originalProviderId"]) {
      assert.ok(newer in want, `the recorded finding has ${newer}`);
      assert.equal(read.finding[newer], undefined, newer);
    }
  });

  it("a name SCC does not list for you: not found, with the role to check", async () => {
    await assert.rejects(
      readFinding("organizations/1/sources/2/findings/nope", standIn.clientOptions),
      (e: unknown) =>
        e instanceof NotFoundError &&
        /no finding named organizations\/1\/sources\/2\/findings\/nope/.test(e.message) &&
        /roles\/securitycenter\.findingsViewer on organizations\/1/.test(e.message),
    );
  });

  it("a name that closes the filter's quotes cannot pick another finding (before: the filter was widened and its first result returned)", async () => {
    const injected = `${BAD_IP.finding.parent}/findings/x" OR category="${BAD_IP.finding.category}`;
    const sent = standIn.calls.length;
    await assert.rejects(readFinding(injected, standIn.clientOptions), InvalidInputError);
    assert.equal(standIn.calls.length, sent, "nothing was sent");
  });

  it("PERMISSION_DENIED says which role to grant, where", async () => {
    await assert.rejects(
      readFinding("organizations/999/sources/1/findings/f", standIn.clientOptions),
      (e: unknown) =>
        e instanceof ConfigError &&
        /grant your account roles\/securitycenter\.findingsViewer on organizations\/999/.test(e.message),
    );
  });
});

describe("readFinding checks the name of what SCC answers", () => {
  it("an answer that is another finding is a FindingMismatchError, never the finding read (before: returned as the one named)", async () => {
    const standIn = await startSccStandIn({ answerRegardless: BAD_IP });
    try {
      const asked = `${BAD_IP.finding.parent}/findings/abc123`;
      await assert.rejects(
        readFinding(asked, standIn.clientOptions),
        (e: unknown) =>
          e instanceof FindingMismatchError &&
          e.message.includes(asked) &&
          e.message.includes(BAD_IP.finding.name) &&
          !e.retryable,
      );
    } finally {
      await standIn.close();
    }
  });
});

describe("the log dataset against the finding's event time, against the BigQuery stand-in", () => {
  const now = new Date("2026-11-27T00:00:00Z");
  const env = (standIn: BigQueryStandIn) => ({ FERRET_BIGQUERY_API_ENDPOINT: standIn.url });

  it("reads table metadata as the service encodes it (recorded bodies)", async () => {
    const standIn = await BigQueryStandIn.start(
      recordedDataset("cloud-custodian", "c7n_remove_labels_tables_13eb", "custodian-tables-list.json", {
        absent: "custodian-table-get-absent.json",
        full: "custodian-table-get-full.json",
        partial: "custodian-table-get-partial.json",
      }),
    );
    try {
      const client = createBigQueryClient({ jobProject: "acme-sec", ...localBigQueryOptions(standIn.url) });
      const tables = await describeSinkTables(
        client,
        "cloud-custodian",
        "c7n_remove_labels_tables_13eb",
        now.getTime(),
      );
      assert.deepEqual(tables[1], {
        name: "full",
        type: "TABLE",
        rows: 0,
        from: 1790351773987,
        to: 1790351774158,
      });
      // A dataset that is not a log sink is refused, naming what it found.
      await assert.rejects(
        checkBigQueryDataset(
          { project: "cloud-custodian", dataset: "c7n_remove_labels_tables_13eb" },
          "acme-sec",
          BAD_IP.finding.eventTime,
          env(standIn),
          now,
        ),
        /none of the tables is a Cloud Logging sink table ferret knows \(cloudaudit_googleapis_com_activity, .*\); found absent, full, partial/,
      );
    } finally {
      await standIn.close();
    }
  });

  it("a sink that covers the event time passes; one that does not is refused with the spans", async () => {
    const target = { project: "acme-logs", dataset: "scc_logs" };
    const covering = await BigQueryStandIn.start(sinkDataset("2019-11-01T00:00:00Z", "2019-12-31T00:00:00Z"));
    const later = await BigQueryStandIn.start(sinkDataset("2026-01-03T00:00:00Z", "2026-11-27T00:00:00Z"));
    try {
      assert.equal(
        await checkBigQueryDataset(target, "acme-sec", BAD_IP.finding.eventTime, env(covering), now),
        "logs: acme-logs.scc_logs: cloudaudit_googleapis_com_activity 2019-11-01 → 2019-12-31; syslog 2019-11-01 → 2019-12-31; the finding's event time 2019-11-22T18:34:36.153Z is inside",
      );
      await assert.rejects(
        checkBigQueryDataset(target, "acme-sec", BAD_IP.finding.eventTime, env(later), now),
        /the finding happened at 2019-11-22T18:34:36\.153Z, outside the time the log tables cover \(cloudaudit_googleapis_com_activity 2026-01-03 → 2026-11-27; syslog 2026-01-03 → 2026-11-27\)/,
      );
      // Table metadata only: no query job was created to answer this.
      assert.equal(covering.jobs().length + later.jobs().length, 0);
    } finally {
      await covering.close();
      await later.close();
    }
  });

  it("a dataset that does not exist: 404 in the API's words, with where to look", async () => {
    const standIn = await BigQueryStandIn.start(sinkDataset("2019-11-01T00:00:00Z", "2019-12-31T00:00:00Z"));
    try {
      await assert.rejects(
        checkBigQueryDataset(
          { project: "acme-logs", dataset: "other" },
          "acme-sec",
          BAD_IP.finding.eventTime,
          env(standIn),
          now,
        ),
        /--bigquery acme-logs\.other: BigQuery has no such dataset \(Not found: Dataset acme-logs:other\)/,
      );
    } finally {
      await standIn.close();
    }
  });
});

describe("operator commands against a deployment read the database Terraform creates", () => {
  it("TERRAFORM_DATABASE is terraform/variables.tf's default for firestore_database", async () => {
    const tf = await loadTerraform();
    assert.equal(tf.variables.get("firestore_database")?.default, TERRAFORM_DATABASE);
  });

  it("picks --database, else FERRET_FIRESTORE_DATABASE, else Terraform's; an emulator keeps the config's", async () => {
    const deployed = { GOOGLE_CLOUD_PROJECT: "acme-sec" };
    assert.equal((await openOperatorData(deployed, {})).databaseId, "ferret");
    assert.equal(
      (await openOperatorData({ ...deployed, FERRET_FIRESTORE_DATABASE: "(default)" }, {})).databaseId,
      "(default)",
    );
    assert.equal((await openOperatorData(deployed, { database: "soc" })).databaseId, "soc");
    const emulator = await openOperatorData({ FIRESTORE_EMULATOR_HOST: "127.0.0.1:1" }, {});
    assert.deepEqual([emulator.projectId, emulator.databaseId], ["ferret-local", "(default)"]);
  });

  it("--run with a directory that has no export says how to get one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ferret-run-"));
    try {
      await assert.rejects(
        openOperatorData({}, { run: dir }),
        /has no firestore-export\/: runs of `npm run demo` and `ferret investigate` leave one/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('nothing to read: says --run, GOOGLE_CLOUD_PROJECT or an emulator (was: "set GOOGLE_CLOUD_PROJECT…")', async () => {
    await assert.rejects(
      openOperatorData({}, {}),
      /after `npm run demo` or `ferret investigate`, pass --run/,
    );
  });
});

const run = promisify(execFile);
const home = mkdtempSync(join(tmpdir(), "ferret-own-home-"));
after(() => rmSync(home, { recursive: true, force: true }));

async function ferret(args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !k.startsWith("FERRET_") &&
        !k.endsWith("_EMULATOR_HOST") &&
        !k.startsWith("GOOGLE_") &&
        !k.startsWith("GEMINI_"),
    ),
  );
  const started = Date.now();
  try {
    const out = await run(
      process.execPath,
      ["--import", "tsx", fromRoot("functions/src/cli/main.ts"), ...args],
      {
        env: {
          ...clean,
          HOME: home,
          CLOUDSDK_CONFIG: join(home, "gcloud"),
          METADATA_SERVER_DETECTION: "none",
          ...env,
        },
        cwd: fromRoot(),
        timeout: 60_000,
      },
    );
    return { status: 0, stdout: out.stdout, stderr: out.stderr, ms: Date.now() - started };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { status: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "", ms: Date.now() - started };
  }
}

describe("ferret investigate --finding/--bigquery refuses in seconds, before the stack starts", {
  timeout: 240_000,
}, () => {
  let standIn: SccStandIn;
  let bigquery: BigQueryStandIn;
  before(async () => {
    standIn = await startSccStandIn({ findings: [BAD_IP] });
    bigquery = await BigQueryStandIn.start(sinkDataset("2026-01-03T00:00:00Z", "2026-11-27T00:00:00Z"));
  });
  after(async () => {
    await standIn.close();
    await bigquery.close();
  });

  it("without application default credentials, reading your finding is refused with the gcloud command", async () => {
    const r = await ferret(["investigate", "--finding", BAD_IP.finding.name, "--model", "offline"]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /^ferret: reading the finding from SCC needs Google application default credentials, and none are usable: .*To fix: run `gcloud auth application-default login`/,
    );
    assert.ok(r.ms < 45_000, `${r.ms} ms`);
  });

  it("logs that do not reach the finding's event time are refused with the spans", async () => {
    const r = await ferret(
      [
        "investigate",
        "--finding",
        BAD_IP.finding.name,
        "--bigquery",
        "acme-logs.scc_logs",
        "--model",
        "offline",
      ],
      {
        FERRET_SCC_API_ENDPOINT: `127.0.0.1:${standIn.clientOptions?.port}`,
        FERRET_BIGQUERY_API_ENDPOINT: bigquery.url,
      },
    );
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /ferret: --bigquery acme-logs\.scc_logs: the finding happened at 2019-11-22T18:34:36\.153Z, outside/,
    );
    assert.equal(standIn.calls.filter((c) => c.method === "ListFindings").length, 1, "the finding was read");
    assert.ok(r.ms < 45_000, `${r.ms} ms`);
  });

  it("a path and --finding together, or --logs with --bigquery, are refused", async () => {
    const both = await ferret([
      "investigate",
      fromRoot("examples/scenarios/cryptomining"),
      "--finding",
      BAD_IP.finding.name,
    ]);
    assert.equal(both.status, 2);
    assert.match(both.stderr, /give either a scenario or notification <path>, or --finding NAME, not both/);
    const two = await ferret([
      "investigate",
      fromRoot("examples/scenarios/cryptomining"),
      "--logs",
      "/tmp",
      "--bigquery",
      "a-project.d",
    ]);
    assert.equal(two.status, 2);
    assert.match(two.stderr, /--logs and --bigquery are two log sources; give one/);
  });
});

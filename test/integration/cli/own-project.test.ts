import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { type SccStandIn, startSccStandIn } from "../../../functions/src/local/scc-stand-in.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { BigQueryStandIn, sinkDataset } from "../../helpers/bigquery-stand-in.js";

/**
 * "Try it on your own project" (README), end to end against the stand-ins: one real Event
 * Threat Detection finding read by name through the official SCC client, the logs queried in
 * the user's BigQuery sink through the production warehouse (dry run first, scan cap on every
 * job), the user's project for the jobs and nothing else; Firestore, Pub/Sub and the workflow
 * on this machine. Then `report`, `queue` and `memories` read what the run left, with --run.
 */
const run = promisify(execFile);
const home = mkdtempSync(join(tmpdir(), "ferret-own-project-"));
const BAD_IP = JSON.parse(readFileSync(fromRoot("test/fixtures/real/scc/sra-etd-bad-ip.json"), "utf8")) as {
  finding: { name: string };
};

async function ferret(args: string[], env: Record<string, string>) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !k.startsWith("FERRET_") &&
        !k.endsWith("_EMULATOR_HOST") &&
        !k.startsWith("GOOGLE_") &&
        !k.startsWith("GEMINI_"),
    ),
  );
  try {
    const out = await run(
      process.execPath,
      ["--import", "tsx", fromRoot("functions/src/cli/main.ts"), ...args],
      {
        env: { ...clean, HOME: home, METADATA_SERVER_DETECTION: "none", ...env },
        cwd: fromRoot(),
        timeout: 540_000,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    return { status: 0, stdout: out.stdout, stderr: out.stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { status: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

describe("ferret investigate --finding … --bigquery … (against the stand-ins)", { timeout: 900_000 }, () => {
  let scc: SccStandIn;
  let bigquery: BigQueryStandIn;
  let env: Record<string, string>;
  before(async () => {
    scc = await startSccStandIn({ findings: [BAD_IP as never] });
    bigquery = await BigQueryStandIn.start(sinkDataset("2019-11-01T00:00:00Z", "2019-12-31T00:00:00Z"));
    env = {
      GOOGLE_CLOUD_PROJECT: "acme-sec",
      FERRET_SCC_API_ENDPOINT: `127.0.0.1:${scc.clientOptions?.port}`,
      FERRET_BIGQUERY_API_ENDPOINT: bigquery.url,
    };
  });
  after(async () => {
    await scc.close();
    await bigquery.close();
    rmSync(home, { recursive: true, force: true });
  });

  let workDir = "";

  it("investigates the finding it read, querying the sink with the production guard, as the user's project", async () => {
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
      env,
    );
    process.stdout.write(`${r.stdout}\n${r.stderr}\n`);
    assert.ok(r.status === 0 || r.status === 3, `exit ${r.status}: ${r.stderr}`);
    assert.match(
      r.stdout,
      /finding: C2: Bad IP on \/\/cloudresourcemanager\.googleapis\.com\/projects\/000000000000, event time 2019-11-22T18:34:36\.153Z \(read from SCC\)/,
    );
    assert.match(
      r.stdout,
      /logs: acme-logs\.scc_logs: cloudaudit_googleapis_com_activity 2019-11-01 → 2019-12-31/,
    );
    assert.match(
      r.stdout,
      /project: acme-sec \(BigQuery jobs and Vertex calls\); Firestore, Pub\/Sub and the workflow stay on this machine/,
    );
    workDir = /work dir ([^)]+)\)/.exec(r.stdout)?.[1] ?? "";
    const report = JSON.parse(readFileSync(join(workDir, "investigation.json"), "utf8")) as {
      investigation: { finding: { name: string }; status: string };
    };
    assert.equal(report.investigation.finding.name, BAD_IP.finding.name);
    // The finding was read once, by name, through ListFindings.
    assert.deepEqual(
      scc.calls.map((c) => [c.method, c.request.filter]),
      [["ListFindings", `name="${BAD_IP.finding.name}"`]],
    );
    // Every query ran in the user's project, priced by a dry run first, under the scan cap.
    const jobs = bigquery.jobs();
    assert.ok(
      jobs.some((j) => !j.dryRun),
      "at least one query ran",
    );
    assert.ok(
      jobs.every((j) => j.project === "acme-sec"),
      jobs.map((j) => j.project).join(","),
    );
    for (const [i, job] of jobs.entries()) {
      const query = job.configuration.query as { maximumBytesBilled?: string; query?: string };
      assert.ok(query.maximumBytesBilled, "maximumBytesBilled on every job");
      if (!job.dryRun) {
        const dry = jobs[i - 1];
        assert.ok(dry?.dryRun && (dry.configuration.query as { query?: string }).query === query.query);
      }
    }
    assert.ok(existsSync(join(workDir, "firestore-export")), "the run left its Firestore export");
  });

  it('report, queue and memories read the run with --run (was: "set GOOGLE_CLOUD_PROJECT…")', async () => {
    assert.ok(workDir, "the investigation ran");
    const report = await ferret(["report", "--run", workDir, "--json"], {});
    assert.equal(report.status, 0, report.stderr);
    const parsed = JSON.parse(report.stdout) as { investigations: number };
    // The report counts finished investigations (concluded or needs_human): this run's.
    assert.equal(parsed.investigations, 1);
    const queue = await ferret(["queue", "--run", workDir], {});
    assert.equal(queue.status, 0, queue.stderr);
    assert.match(queue.stdout, /queue depth\s+0/);
    const memories = await ferret(["memories", "list", "--run", workDir], {});
    assert.equal(memories.status, 0, memories.stderr);
    process.stdout.write(`${report.stdout}\n${queue.stdout}\n${memories.stdout}\n`);
  });
});

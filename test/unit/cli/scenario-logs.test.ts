import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { checkLogDir, loadScenario } from "../../../functions/src/cli/scenario.js";
import { InvalidInputError } from "../../../functions/src/domain/errors.js";

const REAL = "test/fixtures/real/logs";

describe("ferret investigate --logs DIR", () => {
  const temps: string[] = [];
  const temp = () => {
    const dir = mkdtempSync(join(tmpdir(), "ferret-cli-logs-"));
    temps.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  });

  it("uses the given directory instead of the scenario's logs/", () => {
    const scenario = loadScenario("examples/scenarios/cryptomining", { logsDir: `${REAL}/gcloud` });
    assert.equal(scenario.logsDir, resolve(`${REAL}/gcloud`));
    assert.equal(
      loadScenario("examples/scenarios/cryptomining").logsDir,
      resolve("examples/scenarios/cryptomining/logs"),
    );
    assert.throws(
      () => loadScenario("examples/scenarios/cryptomining", { logsDir: `${REAL}/nope` }),
      InvalidInputError,
    );
  });

  it("says which files were converted into which tables", () => {
    const { lines } = checkLogDir(`${REAL}/storage-sink`);
    assert.equal(
      lines[0],
      "logs: 4 files (4 converted from raw LogEntry JSON) → cloudaudit_googleapis_com_data_access (5), " +
        "cloudaudit_googleapis_com_activity (2), dns_googleapis_com_dns_queries (3)",
    );
  });

  it("refuses a directory with a file of unknown layout, naming the file and what is missing", () => {
    const dir = temp();
    copyFileSync(`${REAL}/gcloud/gcloud-logging-read.json`, join(dir, "ok.json"));
    writeFileSync(join(dir, "syslog.jsonl"), '{"message":"Accepted password for root"}\n');
    assert.throws(
      () => checkLogDir(dir),
      (e: unknown) =>
        e instanceof InvalidInputError && /syslog\.jsonl: refused: .*timestamp.*textPayload/.test(e.message),
    );
  });

  it("refuses a directory with no log file in it", () => {
    const dir = temp();
    writeFileSync(join(dir, "notes.txt"), "not logs");
    assert.throws(() => checkLogDir(dir), /no \.json, \.jsonl or \.ndjson file/);
  });
});

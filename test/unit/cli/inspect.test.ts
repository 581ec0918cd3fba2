import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import {
  inspectFile,
  inspectNotification,
  printInspectFile,
  printInspectReport,
} from "../../../functions/src/cli/inspect.js";
import { ConfigSchema } from "../../../functions/src/config/config.js";
import { InvalidInputError } from "../../../functions/src/domain/errors.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";

const config = ConfigSchema.parse({});
const real = (name: string) => fromRoot("test", "fixtures", "real", "scc", `${name}.json`);

function printed(path: string, describeCategory?: (c: string) => string | undefined): string[] {
  const lines: string[] = [];
  const report = inspectNotification(path, {
    json: false,
    config,
    ...(describeCategory ? { describeCategory } : {}),
  });
  printInspectReport({ line: (l) => lines.push(l) }, report);
  return lines;
}

function tempFile(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "ferret-inspect-"));
  const file = join(dir, "notification.json");
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

describe("ferret inspect", () => {
  it("reports every IOC with its JSON path, the resources touched and the ingest decision", () => {
    const report = inspectNotification(real("sra-router-iam-anomalous-grant-remediated"), {
      json: true,
      config,
    });
    assert.deepEqual(
      report.iocs.map((o) => [o.type, o.value, o.path]),
      [
        [
          "principal",
          "test-user@test-project.iam.gserviceaccount.com",
          "sourceProperties.properties.principalEmail",
        ],
        ["principal", "test-user@gmail.com", "sourceProperties.properties.bindingDeltas[0].member"],
        ["principal", "test-user@gmail.com", "sourceProperties.properties.externalMembers[0]"],
      ],
    );
    assert.deepEqual(report.resources, [
      {
        name: "//cloudresourcemanager.googleapis.com/projects/12345678",
        path: "sourceProperties.affectedResources[0].gcpResourceName",
      },
    ]);
    assert.deepEqual(report.ingest, {
      action: "investigate",
      reason: "ACTIVE HIGH finding at or above the minimum LOW",
    });
    assert.equal(report.envelope, "notification");
  });

  it("says why an inactive finding would be skipped, and what it kept verbatim", () => {
    const lines = printed(real("secops-sensitive-data-risk-inactive"));
    assert.ok(lines.includes("ingest: skip (the finding state is INACTIVE, not ACTIVE)"), lines.join("\n"));
    assert.ok(lines.some((l) => l.startsWith("kept verbatim: ") && l.includes("dataAccessEvents")));
    assert.ok(lines.includes("note: sourceProperties was [], read as no properties"));
    assert.ok(
      lines.some((l) => l.startsWith("catalog: ") && !l.includes("no category catalog")),
      lines.join("\n"),
    );
  });

  it("shows a severity taken from a hint and where it came from", () => {
    const lines = printed(real("sra-sha-public-bucket-acl"));
    assert.ok(lines.includes("  severity: HIGH (from sourceProperties.SeverityLevel)"), lines.join("\n"));
  });

  it("lists what was truncated", () => {
    const file = tempFile({
      finding: {
        name: "organizations/1/sources/2/findings/3",
        category: "Malware: Bad Domain",
        eventTime: "2026-01-01T00:00:00Z",
        description: "d".repeat(10_000),
      },
    });
    assert.ok(printed(file).includes("truncated: description"));
  });

  it("prints the catalog entry when a catalog is wired in", () => {
    const lines = printed(real("sra-etd-bad-ip"), (c) =>
      c === "C2: Bad IP" ? "C2: Bad IP — T1071" : undefined,
    );
    assert.ok(lines.includes("  C2: Bad IP — T1071"));
  });

  it("names the detector and the catalog match, or why there is none", () => {
    const legacy = printed(real("sra-etd-bad-ip"));
    // "C2: Bad IP" is the 2019 name of Malware: Bad IP; the detector is named by its sourceProperties.
    assert.ok(
      legacy.includes(
        'catalog: Malware: Bad IP (as "C2: Bad IP", a known spelling): ferret\'s entry, playbook bad_indicator',
      ),
      legacy.join("\n"),
    );
    assert.ok(
      legacy.some((l) => l.startsWith("  detector: Event Threat Detection (from catalog)")),
      legacy.join("\n"),
    );
    const named = printed(real("soar-scc-get-finding-details-public-bucket"));
    assert.ok(
      named.some((l) => l.startsWith("  detector: Security Health Analytics (from parentDisplayName)")),
    );
    const custom = printed(real("jorgecalo-etd-v2-gridtide-custom"));
    assert.ok(
      custom.includes(
        "catalog: none: a custom source's category (Google's saved pages do not list it); the generic plan applies",
      ),
      custom.join("\n"),
    );
    const generated = printed(real("soar-scc-asset-vulnerabilities"));
    assert.ok(
      generated.some((l) => l.startsWith("catalog: OS_VULNERABILITY: generated from Google's list")),
      generated.join("\n"),
    );
  });

  it("inspects a file of several findings finding by finding, saying where each was", () => {
    const report = inspectFile(real("soar-scc-asset-vulnerabilities"), { json: false, config });
    assert.equal(report.container, "a JSON array");
    assert.deepEqual(
      report.findings.map((f) => [f.origin, f.finding.category]),
      [
        ["[0]", "OS_VULNERABILITY"],
        ["[1]", "OS_VULNERABILITY"],
        ["[2]", "COMPUTE_SECURE_BOOT_DISABLED"],
      ],
    );
    const lines: string[] = [];
    printInspectFile({ line: (l) => lines.push(l) }, report);
    assert.ok(lines[0]?.endsWith("a JSON array with 3 finding(s)"), lines[0]);
    assert.ok(lines.includes("\n— finding 3 of 3 ([2]) —"));
  });

  it("reads JSON Lines and an empty ListFindings response in one file", () => {
    const lines = fromRoot("test", "fixtures", "real", "scc", "elastic-google-scc-test-finding.log");
    const report = inspectFile(lines, { json: false, config });
    assert.equal(report.container, "JSON Lines");
    assert.deepEqual(
      report.findings.map((f) => [f.origin, f.finding.category]),
      [["line 1", "application"]],
    );
    // The mute annotator ("Unmuted by john@gmail.com") is bookkeeping, shown as context.
    assert.deepEqual(report.findings[0]?.iocs, []);
  });

  it("keeps escape sequences and invisible characters in a hostile finding off the terminal", () => {
    const file = tempFile({
      finding: {
        name: "organizations/1/sources/2/findings/3",
        category: "Evil\u001b]0;pwned\u0007\u001b[2J\u202E cat",
        eventTime: "2026-01-01T00:00:00Z",
        resourceName: "//compute.googleapis.com/x\u001b]8;;http://evil.icu\u0007y",
      },
    });
    const out = printed(file).join("\n");
    assert.ok(!out.includes("\u001b") && !out.includes("\u0007"), JSON.stringify(out));
    assert.ok(out.includes("⟦U+202E⟧"));
  });

  it("refuses a file that is not JSON, or not a finding, with an invalid-input error", () => {
    assert.throws(
      () => inspectNotification(tempFile("{not json"), { json: false, config }),
      InvalidInputError,
    );
    assert.throws(
      () => inspectNotification(tempFile({ finding: { category: "x" } }), { json: false, config }),
      (e: unknown) => e instanceof InvalidInputError && /finding\.name/.test(e.message),
    );
    assert.throws(
      () => inspectNotification(tempFile({ data: [{ id: 1 }] }), { json: false, config }),
      (e: unknown) =>
        e instanceof InvalidInputError &&
        /holds no SCC finding: it is an object with keys data; expected a Pub\/Sub notification/.test(
          e.message,
        ),
    );
  });

  it("exits 2 on invalid input and 0 with --json output, like investigate", async () => {
    const run = promisify(execFile);
    const cli = fromRoot("functions", "src", "cli", "main.ts");
    const ok = await run(process.execPath, [
      "--import",
      "tsx",
      cli,
      "inspect",
      real("sra-etd-bad-ip"),
      "--json",
    ]);
    assert.equal(JSON.parse(ok.stdout).finding.category, "C2: Bad IP");
    // The CLI wires in ferret's category catalog.
    const grant = await run(process.execPath, [
      "--import",
      "tsx",
      cli,
      "inspect",
      real("sra-etd-iam-anomalous-grant"),
      "--json",
    ]);
    assert.match(
      JSON.parse(grant.stdout).catalog,
      /^Persistence: IAM Anomalous Grant \(.*T1098.*Source: https:\/\//,
    );
    await assert.rejects(
      run(process.execPath, ["--import", "tsx", cli, "inspect", tempFile({ nope: 1 })]),
      (e: { code?: number; stderr?: string }) =>
        e.code === 2 && /holds no SCC finding.*expected a Pub\/Sub notification/.test(e.stderr ?? ""),
    );
  });
});

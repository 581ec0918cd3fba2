import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { cryptominingLogs, sshAccepted, sshFailures } from "./support/evidence.js";
import { bruteForceFinding, cryptominingFinding } from "./support/findings.js";
import { investigate } from "./support/harness.js";
import { malicious, RealTools } from "./support/tools.js";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

const ORIGINAL = {
  project: "acme-prod",
  vm: "batch-7",
  poolIp: "203.0.113.50",
  poolDomain: "pool.minexmr-relay.top",
  hash: "a".repeat(64),
};
const RENAMED = {
  project: "zeta-lab-dev",
  vm: "render-node-42",
  poolIp: "198.51.100.201",
  poolDomain: "eu.hashvault-cdn.site",
  hash: "b".repeat(64),
};

async function cryptominingRun(v: typeof ORIGINAL) {
  const tools = await RealTools.create(cryptominingLogs(v.vm, v.poolIp, v.poolDomain, v.project), {
    [v.poolIp]: malicious(["mining-pool"]),
  });
  try {
    return await investigate(cryptominingFinding(v), tools);
  } finally {
    await tools.close();
  }
}

describe("the offline model keys on categories and evidence, never on scenario values", () => {
  it("renaming project, VM, pool IP, domain and hash changes the queries' values, not the plan's shape or the verdict", async () => {
    const [a, b] = [await cryptominingRun(ORIGINAL), await cryptominingRun(RENAMED)];
    const shape = (run: typeof a) => run.initialPlan.steps.map((s) => [s.id, s.tools, s.dependsOn]);
    assert.deepEqual(shape(a), shape(b));
    const textB = b.initialPlan.steps.map((s) => s.description).join("\n");
    for (const value of [RENAMED.vm, RENAMED.poolIp, RENAMED.poolDomain])
      assert.ok(textB.includes(value), `renamed plan uses ${value}`);
    // What the model wrote (plan and conclusion) carries none of the old values.
    const written = JSON.stringify([b.initialPlan, b.conclusion]);
    for (const value of [ORIGINAL.vm, ORIGINAL.poolIp, ORIGINAL.poolDomain, ORIGINAL.project])
      assert.ok(!written.includes(value), `renamed run never mentions ${value}`);
    assert.equal(a.conclusion.verdict, "true_positive");
    assert.equal(b.conclusion.verdict, a.conclusion.verdict);
    assert.equal(b.conclusion.confidence, a.conclusion.confidence);
    assert.deepEqual(b.conclusion.mitre, a.conclusion.mitre);
    assert.ok(b.conclusion.iocs.some((i) => i.value === RENAMED.poolIp));
  });

  it("the same holds for a brute-force finding on another host and source", async () => {
    const verdicts: string[] = [];
    for (const v of [
      { project: "acme-prod", vm: "bastion-2", attacker: "198.51.100.77" },
      { project: "orbit-research", vm: "jump-eu-9", attacker: "192.0.2.213" },
    ]) {
      const tools = await RealTools.create({
        syslog: [...sshFailures(v.vm, v.attacker, 12), sshAccepted(v.vm, v.attacker, "ops", 20)],
      });
      try {
        const run = await investigate(bruteForceFinding(v), tools);
        verdicts.push(run.conclusion.verdict);
        assert.ok(run.conclusion.iocs.some((i) => i.value === v.attacker));
      } finally {
        await tools.close();
      }
    }
    assert.deepEqual(verdicts, ["true_positive", "true_positive"]);
  });

  it("no offline source file reads examples/ or knows a scenario's names", () => {
    const files = sourceFiles("functions/src/offline-model");
    assert.ok(files.length > 20);
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      for (const banned of [
        /examples\//,
        /expected\.json/,
        /scenarios?\//,
        /etl-worker/,
        /acme/i,
        /pool-relay/,
        /readFileSync|node:fs/,
      ]) {
        assert.ok(!banned.test(text), `${file} must not contain ${banned}`);
      }
    }
  });
});

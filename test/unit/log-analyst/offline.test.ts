import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openDuckDbWarehouse } from "../../../functions/src/adapters/duckdb/warehouse.js";
import { StixThreatIntel } from "../../../functions/src/adapters/stix/threat-intel.js";
import { askStepExecutor } from "../../../functions/src/agent/step-executor.js";
import { normalizeNotification, parseNotification } from "../../../functions/src/domain/finding/finding.js";
import type { LogAnalystSession } from "../../../functions/src/domain/log-analyst-session.js";
import { LOG_ANALYST_TOOLS as T } from "../../../functions/src/log-analyst/tool-names.js";
import type { GenerateRequest, GenerateResponse } from "../../../functions/src/model/port.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import type { LogWarehouse } from "../../../functions/src/ports/log-warehouse.js";
import { loadRunbooks } from "../../../functions/src/sql/runbooks.js";
import { createLogAnalysisTool } from "../../../functions/src/tools/log-analysis.js";
import { createToolRegistry } from "../../../functions/src/tools/registry.js";
import { createThreatIntelLookupTool } from "../../../functions/src/tools/threat-intel-lookup.js";
import { ToolBox } from "../../../functions/src/tools/toolbox.js";
import { plan, step } from "../../fixtures/plans.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";
import { investigate } from "../offline/support/harness.js";
import { scenarioContext } from "../tools/context.js";
import { analyst, lastToolResponses, obj, openCryptoLogs, untrusted } from "./support.js";

/** The offline model behind a recorder, so the test sees every request the analyst sent it. */
function recordedOffline(calls = 8): ScriptedModel {
  const offline = createOfflineModel();
  const serve = (request: GenerateRequest): Promise<GenerateResponse> => offline.generate(request);
  return new ScriptedModel(
    { log_analyst: Array.from({ length: calls }, () => serve) },
    { name: offline.name, offline: true },
  );
}

const factsOf = (data: unknown) => (obj(data as never).facts as string[]).join("\n");

describe("the offline model answers the log_analyst purpose", () => {
  let warehouse: LogWarehouse;
  before(async () => {
    warehouse = await openCryptoLogs();
  });
  after(async () => {
    await warehouse.close();
  });

  it("maps a plain question to the runbook that answers it, the same way every time", async () => {
    const question = {
      request: "Which external IPs did VM etl-worker-1 send traffic to, on which ports, and how much?",
    };
    const model = recordedOffline();
    const a = await analyst(warehouse, model);
    const first = await a.run(question);
    const second = await a.run(question);
    assert.deepEqual(first, second, "deterministic");

    const [sent] = model.requestsFor("log_analyst");
    assert.deepEqual(model.calls[0]?.response?.toolCalls, [
      {
        id: "la-r1-0-main",
        name: T.runRunbook,
        args: {
          runbook: "vpc_flows_from_instance",
          params: { instance: "etl-worker-1", start: "2025-06-10T21:14:27Z", end: "2025-06-11T04:14:27Z" },
          pageSize: 100,
        },
      },
    ]);
    assert.equal(sent?.brief.role, "log_analyst");
    const data = obj(first.data);
    assert.equal(data.outcome, "answered");
    assert.match(
      String(data.summary),
      /^\[offline playbook, no LLM\] Log analysis flows: \d+ flow record\(s\)/,
    );
    assert.match(factsOf(first.data), /etl-worker-1 ↔ 203\.0\.113\.88 port 3333/);
    assert.equal(a.sessions[0]?.model, "offline-playbook");
  });

  it("recovers from an empty answer with a wider window and the field's real values", async () => {
    const model = recordedOffline();
    const out = await (await analyst(warehouse, model)).run({
      request: "Which external IPs did VM etl-worker-9 send traffic to?",
    });
    const [, second, third] = model.requestsFor("log_analyst");
    assert.equal(untrusted(lastToolResponses(second!)[0]!).totalRows, 0);
    const recovery = model.calls[1]?.response?.toolCalls ?? [];
    assert.deepEqual(
      recovery.map((c) => [c.id, c.name]),
      [
        ["la-r2-0-wide", T.runRunbook],
        ["la-r2-1-probe", T.distinctValues],
      ],
    );
    assert.deepEqual(recovery[1]?.args, {
      table: "compute_googleapis_com_vpc_flows",
      field: "jsonPayload.src_instance.vm_name",
      // Four times as far back and twice as far forward from eventTime, to the second.
      start: "2025-06-10T03:14:25Z",
      end: "2025-06-11T05:14:27Z",
    });
    const probe = lastToolResponses(third!).find((r) => r.name === T.distinctValues);
    assert.match(String(probe?.response.summary), /most frequent .*"etl-worker-1"/);
    const data = obj(out.data);
    assert.equal(data.outcome, "no_data");
    assert.match(factsOf(out.data), /values present in the wider window: .*etl-worker-1/);
  });

  it("answers the executor's step when an LLM-written plan asks log_analysis", async () => {
    const ctx = scenarioContext();
    const tool = await createLogAnalysisTool({
      warehouse,
      runbooks: loadRunbooks(),
      model: createOfflineModel(),
    });
    const registry = createToolRegistry([tool]);
    const theStep = step("pool-traffic", {
      description:
        "Use the log analysis to check VPC flow logs for connections from etl-worker-1 to 203.0.113.88 around the event.",
      expected: "Regular flows to the pool confirm mining.",
      tools: ["log_analysis"],
    });
    const thePlan = plan([theStep], { objective: "Did etl-worker-1 mine?" });
    const result = await askStepExecutor({
      investigationId: "inv-test",
      finding: ctx.finding,
      plan: thePlan,
      step: theStep,
      priorResults: [],
      model: createOfflineModel(),
      toolbox: new ToolBox(registry, () => true),
      maxIterations: 6,
      logger: silentLogger,
      now: () => new Date("2025-06-12T09:00:00Z"),
    });
    assert.equal(result.outcome, "answered", result.summary);
    assert.equal(result.toolCalls.length, 1, "the analyst recovered on its own; the step asked once");
    const [call] = result.toolCalls;
    assert.equal(call?.name, "log_analysis");
    assert.match(String(call?.args.request), /Runbook: vpc_flows_to_ip\. \[plan: flows ips=203\.0\.113\.88 /);
    assert.deepEqual(obj(call?.args.timeWindow as never), {
      start: "2025-06-10T21:14:27Z",
      end: "2025-06-11T04:14:27Z",
    });
    assert.match(
      result.facts.join("\n"),
      /runbook vpc_flows_to_ip: \d+ flow record\(s\) .+? ↔ 203\.0\.113\.88 port 3333/,
    );
  });
});

const ROOT = "examples/scenarios";
const scenarios = existsSync(ROOT)
  ? readdirSync(ROOT).filter((name) =>
      ["notification.json", "expected.json", "logs", "intel/bundle.json"].every((f) =>
        existsSync(join(ROOT, name, f)),
      ),
    )
  : [];

describe("offline investigations that reach the logs only through log_analysis", () => {
  for (const name of scenarios) {
    it(`${name}: the expected verdict`, async () => {
      const dir = join(ROOT, name);
      const expected = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")) as {
        acceptableVerdicts: string[];
        requiredIocs?: { type: string; value: string }[];
      };
      const finding = normalizeNotification(
        parseNotification(JSON.parse(readFileSync(join(dir, "notification.json"), "utf8"))),
      );
      const warehouse = await openDuckDbWarehouse({ dir: join(dir, "logs"), timeoutMs: 10_000 });
      const sessions: LogAnalystSession[] = [];
      try {
        const registry = createToolRegistry([
          await createLogAnalysisTool({
            warehouse,
            runbooks: loadRunbooks(),
            model: createOfflineModel(),
            publishSession: async (s) => {
              sessions.push(s);
            },
          }),
          createThreatIntelLookupTool(
            StixThreatIntel.fromFile(join(dir, "intel/bundle.json"), {
              now: () => new Date(finding.eventTime),
            }),
          ),
        ]);
        const { conclusion, results } = await investigate(finding, registry);
        assert.ok(
          expected.acceptableVerdicts.includes(conclusion.verdict),
          `verdict ${conclusion.verdict} not in ${expected.acceptableVerdicts.join(", ")}: ${conclusion.summary}`,
        );
        const iocs = new Set(conclusion.iocs.map((i) => `${i.type}:${i.value.toLowerCase()}`));
        for (const ioc of expected.requiredIocs ?? [])
          assert.ok(
            iocs.has(`${ioc.type}:${ioc.value.toLowerCase()}`),
            `conclusion lists ${ioc.type} ${ioc.value}`,
          );
        const logCalls = results.flatMap((r) => r.toolCalls).filter((c) => c.name === "log_analysis");
        assert.ok(logCalls.length > 0, "the plan used log_analysis");
        assert.equal(sessions.length, logCalls.length, "one published session per call");
      } finally {
        await warehouse.close();
      }
    });
  }
});

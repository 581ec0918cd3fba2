import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { loadConfig, toolAllowed } from "../../functions/src/config/config.js";
import { normalizeNotification, parseNotification } from "../../functions/src/domain/finding/finding.js";
import { buildToolRegistry } from "../../functions/src/entry/tool-registry.js";
import { silentLogger } from "../../functions/src/platform/logger.js";
import { ToolBox } from "../../functions/src/tools/toolbox.js";
import { someBrief } from "../../test/helpers/briefs.js";
import { type BenchScenario, listScenarios } from "../lib/scenarios.js";
import { runReact } from "./loop.js";
import { OfflineReactBrain } from "./offline-brain.js";

// Run with: node --import tsx --test bench/react/offline-brain.test.ts
// The brain with the real tools over two bundled scenarios' logs (DuckDB) and intel (STIX).

describe("the offline brain drives the ReAct loop to the scenario's verdict", () => {
  for (const name of ["iam-anomalous-grant", "cryptomining"]) {
    describe(name, () => {
      const scenario = listScenarios([name])[0] as BenchScenario;
      let built: Awaited<ReturnType<typeof buildToolRegistry>>;
      let toolbox: ToolBox;
      const config = loadConfig({
        env: {
          FERRET_MODEL_PROVIDER: "offline",
          FERRET_DUCKDB_DIR: scenario.logsDir,
          FERRET_STIX_BUNDLE: scenario.stixBundle,
        },
      });

      before(async () => {
        built = await buildToolRegistry(config, {}, silentLogger);
        toolbox = new ToolBox(built.registry, (tool) => toolAllowed(config, tool));
      });
      after(async () => {
        await built?.warehouse?.close();
      });

      it("concludes an acceptable verdict, spending one turn per tool round plus the answer", async () => {
        const brain = new OfflineReactBrain();
        const turns: number[] = [];
        const model = {
          name: brain.name,
          offline: true,
          generate: async (r: Parameters<OfflineReactBrain["generate"]>[0]) => {
            turns.push(r.messages.length);
            return brain.generate(r);
          },
          embed: brain.embed.bind(brain),
        };
        const outcome = await runReact({
          investigationId: `react-${name}`,
          finding: normalizeNotification(parseNotification(scenario.notification)),
          model,
          toolbox,
          tables: built.tables.map((t) => t.name),
          maxTurns: 25,
          maxSteps: config.agent.maxSteps,
          maxIterationsPerLine: config.agent.maxStepIterations,
          logger: silentLogger,
          onTurn: (context) => brain.observe(context),
        });
        assert.equal(outcome.status, "concluded", outcome.reason);
        assert.ok(
          scenario.acceptable.includes(outcome.conclusion?.verdict ?? ""),
          `${outcome.conclusion?.verdict} is one of ${scenario.acceptable.join(", ")}`,
        );
        const rounds = new Set(outcome.toolCalls.map((c) => c.id.replace(/-\d+-[a-z]+$/, ""))).size;
        assert.equal(outcome.turns, rounds + 1, "no turn is spent summarizing a line of inquiry");
        assert.ok(
          outcome.toolCalls.every((c) => c.ok),
          `every call was well formed: ${outcome.toolCalls
            .filter((c) => !c.ok)
            .map((c) => c.summary)
            .join(" | ")}`,
        );
        assert.deepEqual(
          turns,
          [...turns].sort((a, b) => a - b),
          "the conversation only grows",
        );
      });
    });
  }

  it("refuses a request that is not the ReAct loop's", async () => {
    await assert.rejects(
      new OfflineReactBrain().generate({ brief: someBrief("planner"), system: "", messages: [] }),
      /answers only the bench's ReAct loop/,
    );
  });
});

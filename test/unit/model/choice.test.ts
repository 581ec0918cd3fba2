import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { z } from "zod";
import { modelFields } from "../../../functions/src/app/roles-common.js";
import { loadConfig } from "../../../functions/src/config/config.js";
import { ModelUnavailableError } from "../../../functions/src/domain/errors.js";
import type { Investigation } from "../../../functions/src/domain/investigation.js";
import { appDepsFor, type Runtime } from "../../../functions/src/entry/runtime.js";
import { chooseModel, servedOffline } from "../../../functions/src/model/choice.js";
import { ProviderUnavailableError, RequestRejectedError } from "../../../functions/src/model/errors.js";
import type { GenerateRequest, GenerateResponse } from "../../../functions/src/model/port.js";
import { modelDescription } from "../../../functions/src/notify/render-finding.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { silentLogger } from "../../../functions/src/platform/logger.js";
import type { LogWarehouse } from "../../../functions/src/ports/log-warehouse.js";
import { defineTool, type ToolContext } from "../../../functions/src/tools/port.js";
import { createToolRegistry } from "../../../functions/src/tools/registry.js";
import { someBrief } from "../../helpers/briefs.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";
import { analyst, callContext, openCryptoLogs } from "../log-analyst/support.js";

/** A Gemini stand-in that must not be asked: any call fails the test. */
function untouchable(): ScriptedModel {
  return new ScriptedModel([], { name: "gemini-stand-in" });
}

/** The offline model behind a recorder. */
function recordedOffline(calls = 8): ScriptedModel {
  const offline = createOfflineModel();
  const serve = (request: GenerateRequest): Promise<GenerateResponse> => offline.generate(request);
  return new ScriptedModel(
    { log_analyst: Array.from({ length: calls }, () => serve) },
    { name: offline.name, offline: true },
  );
}

describe("chooseModel: which model serves an investigation", () => {
  const primary = untouchable();
  const offline = createOfflineModel();

  it("serves an investigation that fell back from the offline model, for good", () => {
    const choice = chooseModel({ primary, offline, fallbackToOffline: true }, { fellBackToOffline: true });
    assert.equal(choice.model, offline);
    assert.equal(choice.fallback, undefined, "nothing left to fall back from");
  });

  it("watches a fresh investigation with a fallback wrapper that diverts to the offline model", async () => {
    const failing = new ScriptedModel({ planner: [new ModelUnavailableError("quota spent")] }, { name: "g" });
    const choice = chooseModel(
      { primary: failing, offline, fallbackToOffline: true },
      { fellBackToOffline: false },
    );
    assert.ok(choice.fallback);
    assert.equal(choice.fallback.fellBack, false);
    assert.equal(choice.fallback.divert(new Error("schema broken twice"), "planner"), true);
    assert.equal(choice.fallback.fellBack, true);
  });

  it("keeps the primary when falling back is switched off, and the offline model when it is the primary", () => {
    assert.equal(chooseModel({ primary, offline, fallbackToOffline: false }).model, primary);
    assert.equal(chooseModel({ primary: offline, offline, fallbackToOffline: true }).model, offline);
    assert.equal(
      chooseModel({ primary, fallbackToOffline: true }).model,
      primary,
      "no offline model to offer",
    );
  });
});

describe("appDepsFor: why an investigation left its LLM is logged", () => {
  function runtimeWith(primary: ScriptedModel, lines: Array<[string, string, Record<string, unknown>]>) {
    const record =
      (level: string) =>
      (message: string, fields: Record<string, unknown> = {}) => {
        lines.push([level, message, fields]);
      };
    const logger = {
      ...silentLogger,
      warn: record("warn"),
      error: record("error"),
      child: () => logger,
    };
    return {
      config: loadConfig({ env: {} }),
      logger,
      registry: createToolRegistry([]),
      tables: [],
      primaryModel: primary,
      offlineModel: new ScriptedModel(["offline answer"], { name: "offline-playbook", offline: true }),
      now: () => new Date(),
    } as unknown as Runtime;
  }
  const fresh = { id: "inv-3", fellBackToOffline: false } as Investigation;
  const ask: GenerateRequest = {
    brief: someBrief("planner"),
    system: "",
    messages: [{ role: "user", text: "plan" }],
  };

  it("a request the provider refused is logged as ferret's bug, at error level, with the provider's words", async () => {
    const refused = new RequestRejectedError(
      "Gemini 400 INVALID_ARGUMENT: Function call is missing a thought_signature … — a ferret bug",
      "Function call is missing a thought_signature in functionCall parts.",
      undefined,
    );
    const lines: Array<[string, string, Record<string, unknown>]> = [];
    const deps = appDepsFor(
      runtimeWith(new ScriptedModel({ planner: [refused] }, { name: "g" }), lines),
      fresh,
    );
    assert.equal((await deps.model.generate(ask)).text, "offline answer");
    assert.equal(lines.length, 1);
    const [level, message, fields] = lines[0]!;
    assert.equal(level, "error");
    assert.match(message, /^ferret bug: /);
    assert.equal(
      fields.providerMessage,
      "Function call is missing a thought_signature in functionCall parts.",
    );
    assert.equal(fields.role, "planner");
  });

  it("an outage is a warning, not a bug", async () => {
    const lines: Array<[string, string, Record<string, unknown>]> = [];
    const down = new ModelUnavailableError("Gemini 503 UNAVAILABLE");
    const deps = appDepsFor(runtimeWith(new ScriptedModel({ planner: [down] }, { name: "g" }), lines), fresh);
    await deps.model.generate(ask);
    assert.deepEqual(
      lines.map(([level]) => level),
      ["warn"],
    );
  });
});

describe("the sticky fallback reaches the sub-agent", () => {
  let warehouse: LogWarehouse;
  before(async () => {
    warehouse = await openCryptoLogs();
  });
  after(async () => {
    await warehouse.close();
  });

  it("a tool run for a fallen-back investigation is told so; a fresh one is not", async () => {
    const seen: ToolContext[] = [];
    const probe = defineTool({
      name: "probe",
      description: "records its context",
      readOnly: true,
      input: z.object({}),
      run: async (_input, ctx) => {
        seen.push(ctx);
        return { ok: true, summary: "seen", data: null };
      },
    });
    const primary = untouchable();
    const runtime = {
      config: loadConfig({ env: {} }),
      logger: silentLogger,
      registry: createToolRegistry([probe]),
      tables: [],
      primaryModel: primary,
      offlineModel: createOfflineModel(),
      now: () => new Date(),
    } as unknown as Runtime;
    const fellBack = { id: "inv-1", fellBackToOffline: true } as Investigation;
    const fresh = { id: "inv-2", fellBackToOffline: false } as Investigation;
    const ctx = { ...callContext(), logger: silentLogger };

    const stuck = appDepsFor(runtime, fellBack);
    assert.equal(stuck.model.name, runtime.offlineModel.name);
    assert.equal(stuck.model.offline, true);
    await stuck.toolbox.run("probe", {}, ["probe"], ctx);
    const watched = appDepsFor(runtime, fresh);
    assert.notEqual(watched.model, runtime.offlineModel);
    await watched.toolbox.run("probe", {}, ["probe"], ctx);
    assert.deepEqual(
      seen.map((c) => c.offlineOnly === true),
      [true, false],
    );
  });

  it("the log analyst of a fallen-back investigation thinks offline and never asks the primary", async () => {
    const primary = untouchable();
    const offline = recordedOffline();
    const a = await analyst(warehouse, primary, { fallbackModel: offline });
    const question = { request: "Which external IPs did VM etl-worker-1 send traffic to, on which ports?" };
    const out = await a.run(question, { ...callContext(), offlineOnly: true });
    assert.equal(out.ok, true, out.summary);
    assert.equal(primary.calls.length, 0, "the primary model was asked");
    assert.ok(offline.calls.length > 0);
    assert.equal(a.sessions.at(-1)?.model, offline.name);
  });

  it("without the mark the analyst asks the primary first (the mark is what keeps it offline)", async () => {
    const primary = untouchable();
    const offline = recordedOffline();
    const a = await analyst(warehouse, primary, { fallbackModel: offline });
    await a
      .run({ request: "Which external IPs did VM etl-worker-1 send traffic to?" })
      .catch(() => undefined);
    assert.ok(primary.calls.length > 0, "the primary is asked when the investigation did not fall back");
  });
});

describe("a fallback is decided per investigation and bounded in time (issue 36.3)", () => {
  const primary = untouchable();
  const offline = createOfflineModel();
  const models = { primary, offline, fallbackToOffline: true };
  const t0 = Date.parse("2026-12-07T12:00:00Z");

  it("served offline exactly while now is before offlineUntil; without one, for the rest of the investigation", () => {
    fc.assert(
      fc.property(fc.integer({ min: -3_600_000, max: 3_600_000 }), fc.boolean(), (offset, bounded) => {
        const investigation = {
          fellBackToOffline: true,
          ...(bounded ? { offlineUntil: new Date(t0).toISOString() } : {}),
        };
        const now = new Date(t0 + offset);
        const expected = bounded ? offset < 0 : true;
        assert.equal(servedOffline(investigation, now), expected);
        assert.equal(chooseModel(models, investigation, {}, now).model === offline, expected);
      }),
      { seed: 36, numRuns: 200 },
    );
  });

  it("a burst of 429s records a time-bounded fallback with its reason; a refused request one for good", async () => {
    const now = new Date(t0);
    const config = loadConfig({ env: {} });
    const runtime = (failure: Error) =>
      ({
        config,
        logger: silentLogger,
        registry: createToolRegistry([]),
        tables: [],
        primaryModel: new ScriptedModel({ planner: [failure] }, { name: "g" }),
        offlineModel: new ScriptedModel(["offline answer"], { name: "offline-playbook", offline: true }),
        now: () => now,
      }) as unknown as Runtime;
    const inv = { id: "inv-9", model: "g", fellBackToOffline: false } as Investigation;
    const ask: GenerateRequest = {
      brief: someBrief("planner"),
      system: "",
      messages: [{ role: "user", text: "plan" }],
    };

    const burst = appDepsFor(
      runtime(new ProviderUnavailableError("Gemini 429 RESOURCE_EXHAUSTED", { httpStatus: 429 })),
      inv,
    );
    await burst.model.generate(ask);
    const passing = modelFields(inv, burst);
    assert.equal(passing.fellBackToOffline, true);
    assert.equal(
      passing.offlineUntil,
      new Date(t0 + config.model.offlineRetryAfterSeconds * 1000).toISOString(),
    );
    assert.match(passing.fallbackReason ?? "", /429 RESOURCE_EXHAUSTED/);
    // After the window the next request of the same investigation asks the LLM again.
    const later = new Date(t0 + config.model.offlineRetryAfterSeconds * 1000 + 1);
    assert.notEqual(chooseModel(models, { ...inv, ...passing }, {}, later).model, offline);

    const refused = new RequestRejectedError("Gemini 400 INVALID_ARGUMENT", "bad request", undefined);
    const rejected = appDepsFor(runtime(refused), inv);
    await rejected.model.generate(ask);
    const final = modelFields(inv, rejected);
    assert.equal(final.fellBackToOffline, true);
    assert.equal(final.offlineUntil, undefined);
    assert.equal(chooseModel(models, { ...inv, ...final }, {}, later).model, offline);
  });

  it("the card's footer says why the LLM was left", () => {
    const text = JSON.stringify(
      modelDescription({
        model: "gemini-3.8-flash",
        fellBackToOffline: true,
        fallbackReason: "Gemini 429 RESOURCE_EXHAUSTED: quota",
      }),
    );
    assert.match(text, /after the LLM became unavailable \(Gemini 429 RESOURCE_EXHAUSTED: quota\)/);
  });
});

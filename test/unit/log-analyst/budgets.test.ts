import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DeadlineExceededError } from "../../../functions/src/domain/errors.js";
import { LOG_ANALYST_TOOLS as T } from "../../../functions/src/log-analyst/tool-names.js";
import type { LogWarehouse, QueryRequest } from "../../../functions/src/ports/log-warehouse.js";
import { ScriptedModel, type ScriptStep } from "../../helpers/scripted-model.js";
import { analyst, callContext, obj, openCryptoLogs } from "./support.js";

const QUESTION = { request: "Which external IPs did VM etl-worker-1 send traffic to, and on which ports?" };
const FLOWS = "SELECT * FROM compute_googleapis_com_vpc_flows WHERE timestamp BETWEEN @start AND @end";

/** Every round asks for one more query and reports `tokens` of usage. */
const queryRound =
  (tokens: number): ScriptStep =>
  () => ({
    toolCalls: [{ name: T.runQuery, args: { sql: FLOWS } }],
    usage: { inputTokens: tokens - 100, outputTokens: 100 },
  });

describe("the log analyst's budgets", () => {
  let warehouse: LogWarehouse;
  before(async () => {
    warehouse = await openCryptoLogs();
  });
  after(async () => {
    await warehouse.close();
  });

  it("stops at its token share with a partial answer that says so, instead of running to its round cap", async () => {
    const model = new ScriptedModel({ log_analyst: Array.from({ length: 20 }, () => queryRound(1_000)) });
    const a = await analyst(warehouse, model);
    const out = await a.run(QUESTION, { ...callContext(), tokenAllowance: 2_500 });

    // 1000 tokens a round: after three rounds 3000 ≥ 2500, so no fourth call and no forced answer.
    assert.equal(model.requestsFor("log_analyst").length, 3);
    const data = obj(out.data);
    assert.equal(data.capReached, false);
    assert.match(out.summary, /Stopped at its token share \(3000 of 2500 tokens\) after 3 round\(s\)/);
    assert.match(out.summary, /partial/);
    assert.deepEqual(out.usage && out.usage.inputTokens + out.usage.outputTokens, 3_000);
    assert.equal(a.sessions.length, 1, "the partial session is still handed to the memory pipeline");
  });

  it("makes no model call at all when its share is already spent", async () => {
    const model = new ScriptedModel({ log_analyst: [queryRound(1_000)] });
    const a = await analyst(warehouse, model);
    const out = await a.run(QUESTION, { ...callContext(), tokenAllowance: 0 });
    assert.equal(model.requestsFor("log_analyst").length, 0);
    assert.match(out.summary, /Stopped at its token share \(0 of 0 tokens\)/);
  });

  it("sends the calling step's signal with every model request", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel({
      log_analyst: [
        queryRound(100),
        { json: { outcome: "answered", summary: "done", facts: [], iocs: [], queries: [] } },
      ],
    });
    const a = await analyst(warehouse, model);
    await a.run(QUESTION, { ...callContext(), signal: controller.signal });
    const sent = model.requestsFor("log_analyst");
    assert.ok(sent.length >= 1);
    for (const request of sent) assert.equal(request.signal, controller.signal);
  });

  it("runs no query and asks the model nothing more once the step's deadline has fired", async () => {
    const controller = new AbortController();
    const queries: QueryRequest[] = [];
    const counting: LogWarehouse = {
      dialect: warehouse.dialect,
      listTables: () => warehouse.listTables(),
      describeTable: (name) => warehouse.describeTable(name),
      query: (request) => {
        queries.push(request);
        return warehouse.query(request);
      },
      close: async () => {},
    };
    // The deadline fires while the model is answering its first round.
    const model = new ScriptedModel({
      log_analyst: [
        () => {
          controller.abort(new DeadlineExceededError("step deadline passed"));
          return { toolCalls: [{ name: T.runQuery, args: { sql: FLOWS } }] };
        },
        queryRound(100),
        queryRound(100),
      ],
    });
    const a = await analyst(counting, model);
    await a.run(QUESTION, { ...callContext(), signal: controller.signal });
    assert.equal(model.calls.length, 1, "no model call after the deadline");
    assert.equal(queries.length, 0, "no query after the deadline");
  });
});

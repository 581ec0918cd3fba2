import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LogAnalystBrief } from "../../../functions/src/agent/briefs.js";
import { LOG_ANALYST_TOOLS as T } from "../../../functions/src/log-analyst/tool-names.js";
import { isRepairRequest } from "../../../functions/src/model/structured.js";
import type { LogWarehouse } from "../../../functions/src/ports/log-warehouse.js";
import { geminiSchemaProblems } from "../../../functions/src/tools/registry.js";
import { promptFor } from "../../helpers/brief-prompt.js";
import { ScriptedModel, type ScriptedResponse, type ScriptStep } from "../../helpers/scripted-model.js";
import {
  analyst,
  DEFAULT_WINDOW,
  finalAnswer,
  lastToolResponses,
  obj,
  openCryptoLogs,
  rowsOf,
  untrusted,
} from "./support.js";

/** Runbooks hand TIMESTAMP parameters back normalized, with milliseconds. */
const iso = (w: { start: string; end: string }) => ({
  start: new Date(w.start).toISOString(),
  end: new Date(w.end).toISOString(),
});

const QUESTION = { request: "Which external IPs did VM etl-worker-1 send traffic to, and on which ports?" };

describe("log_analysis: the sub-agent's loop over the real DuckDB warehouse", () => {
  let warehouse: LogWarehouse;
  before(async () => {
    warehouse = await openCryptoLogs();
  });
  after(async () => {
    await warehouse.close();
  });

  it("offers the main agent one tool with a Gemini-safe schema, and the sub-model its own tools", async () => {
    const model = new ScriptedModel({ log_analyst: [finalAnswer()] });
    const a = await analyst(warehouse, model);
    const [declaration] = a.registry.declarations();
    assert.equal(declaration?.name, "log_analysis");
    assert.deepEqual(geminiSchemaProblems(declaration!.parameters), []);
    assert.match(
      declaration!.description,
      /Tables: cloudaudit_googleapis_com_activity \(Admin Activity audit logs\);/,
    );
    await a.run(QUESTION);
    const [sent] = model.requestsFor("log_analyst");
    assert.deepEqual(
      sent!.tools?.map((t) => t.name),
      Object.values(T),
    );
    for (const t of sent!.tools ?? []) assert.deepEqual(geminiSchemaProblems(t.parameters), [], t.name);
    assert.match(
      sent!.system,
      /Write BigQuery Standard SQL \(GoogleSQL\)\. Here it runs on a local DuckDB warehouse/,
    );
    const rendered = promptFor(sent!.brief);
    assert.equal(sent!.system, rendered.system, "the prompt is the brief's rendering (decision 0042)");
    assert.deepEqual(sent!.messages[0], { role: "user", text: rendered.user });
    const context = sent!.brief as LogAnalystBrief;
    assert.equal(context.role, "log_analyst");
    assert.deepEqual(context.window, DEFAULT_WINDOW);
    assert.equal(context.windowSource, "default");
    assert.equal(context.maxIterations, 16);
  });

  it("stops a model that keeps calling tools after 16 rounds and says so in a bounded answer", async () => {
    const keepCalling: ScriptStep = () => ({ toolCalls: [{ name: T.listTables }] });
    const model = new ScriptedModel({ log_analyst: Array.from({ length: 18 }, () => keepCalling) });
    const a = await analyst(warehouse, model);
    const out = await a.run(QUESTION);

    const sent = model.requestsFor("log_analyst");
    assert.equal(sent.length, 18, "16 rounds, one request for the final answer, one repair");
    assert.ok(sent.slice(0, 16).every((r) => (r.tools?.length ?? 0) === Object.keys(T).length));
    assert.deepEqual(
      sent.slice(0, 16).map((r) => (r.brief as LogAnalystBrief).iteration),
      Array.from({ length: 16 }, (_, i) => i + 1),
    );
    const forced = sent[16]!;
    assert.equal(forced.tools, undefined, "no tools are offered once the cap is reached");
    assert.ok(forced.responseSchema, "the final answer is asked for as JSON");
    assert.equal((forced.brief as LogAnalystBrief).finalAnswerOnly, true);
    const last = forced.messages.at(-1);
    assert.ok(last?.role === "user" && last.text.includes("You have used all 16 rounds of tool calls."));
    assert.ok(isRepairRequest(sent[17]!));
    assert.equal(model.remaining(), 0);

    const data = obj(out.data);
    assert.equal(data.capReached, true);
    assert.equal(data.iterations, 16);
    assert.match(out.summary, /Stopped at the iteration cap of 16 rounds; the answer may be partial\./);
    assert.match(String(data.summary), /stopped at its iteration cap of 16 rounds without a final answer/);
    assert.match(JSON.stringify(data.openQuestions), /hit its cap of 16 rounds/);
    assert.ok(Buffer.byteLength(JSON.stringify(out.data)) <= 16_000, "the answer stays within its budget");
  });

  it("takes the model's answer at a configurable cap when it gives one", async () => {
    const call: ScriptStep = () => ({ toolCalls: [{ name: T.listRunbooks }] });
    const model = new ScriptedModel({
      log_analyst: [call, call, finalAnswer("Partial: the pool got most traffic.")],
    });
    const out = await (await analyst(warehouse, model, { maxIterations: 2 })).run(QUESTION);
    const data = obj(out.data);
    assert.equal(model.requestsFor("log_analyst").length, 3);
    assert.equal(data.summary, "Partial: the pool got most traffic.");
    assert.equal(data.capReached, true);
    assert.match(JSON.stringify(data.openQuestions), /hit its cap of 2 rounds/);
    assert.match(model.requestsFor("log_analyst")[0]!.system, /at most 2 rounds of tool calls/);
  });

  it("pages: the token it was handed reads the next rows, and the window defaults to eventTime's", async () => {
    let token = "";
    const model = new ScriptedModel({
      log_analyst: [
        {
          toolCalls: [
            {
              name: T.runRunbook,
              args: { runbook: "host_syslog", params: { instance: "etl-worker-1" }, pageSize: 5 },
            },
          ],
        },
        (request) => {
          token = String(untrusted(lastToolResponses(request)[0]!).nextPageToken);
          return { toolCalls: [{ name: T.nextPage, args: { pageToken: token } }] };
        },
        finalAnswer(),
      ],
    });
    const out = await (await analyst(warehouse, model)).run(QUESTION);
    assert.equal(out.ok, true, out.summary);

    const sent = model.requestsFor("log_analyst");
    const page1 = untrusted(lastToolResponses(sent[1]!)[0]!);
    assert.deepEqual(obj(page1.params), { instance: "etl-worker-1", ...iso(DEFAULT_WINDOW) });
    assert.ok(token.length > 0 && page1.nextPageToken === token);
    const echoed = sent[2]!.messages.find((m) => m.role === "model" && m.toolCalls?.[0]?.name === T.nextPage);
    assert.ok(echoed?.role === "model");
    assert.equal(echoed.toolCalls?.[0]?.args.pageToken, token, "the token round-trips unchanged");
    const page2 = untrusted(lastToolResponses(sent[2]!)[0]!);
    const [rows1, rows2] = [rowsOf(page1), rowsOf(page2)];
    assert.equal(rows1.length, 5);
    assert.equal(rows2.length, 5);
    const stamps = (rows: typeof rows1) => rows.map((r) => `${String(r.timestamp)} ${String(r.line)}`);
    assert.equal(
      stamps(rows1).some((s) => stamps(rows2).includes(s)),
      false,
      "page 2 holds other rows than page 1",
    );
    assert.ok(String(rows2[0]!.timestamp) >= String(rows1[4]!.timestamp), "in time order");
    assert.equal(page2.totalRows, page1.totalRows);

    const queries = (obj(out.data).queries as unknown[]).map((q) => obj(q as never));
    assert.deepEqual(
      queries.map((q) => q.tool),
      [T.runRunbook, T.nextPage],
    );
  });

  it("refuses a page token it did not hand out, as an error the sub-model reads", async () => {
    const model = new ScriptedModel({
      log_analyst: [
        {
          toolCalls: [
            { name: T.nextPage, args: { pageToken: "eyJ2IjoxLCJmIjoiMDAwMDAwMDAwMDAwMDAwMCIsIm8iOjV9" } },
          ],
        },
        finalAnswer(),
      ],
    });
    await (await analyst(warehouse, model)).run(QUESTION);
    const [refused] = lastToolResponses(model.requestsFor("log_analyst")[1]!);
    assert.equal(refused!.response.ok, false);
    assert.match(
      String(refused!.response.summary),
      /unknown pageToken: pass the nextPageToken of an earlier result/,
    );
  });

  it("recovers from 0 rows: the next request carries the field's real values", async () => {
    const model = new ScriptedModel({
      log_analyst: [
        {
          toolCalls: [
            {
              name: T.runRunbook,
              args: { runbook: "vpc_flows_from_instance", params: { instance: "4817394021" } },
            },
          ],
        },
        (request): ScriptedResponse => {
          const empty = untrusted(lastToolResponses(request)[0]!);
          assert.equal(empty.totalRows, 0, "the numeric instance id matches nothing");
          return {
            toolCalls: [
              { name: T.describeTable, args: { table: "compute_googleapis_com_vpc_flows" } },
              {
                name: T.distinctValues,
                args: {
                  table: "compute_googleapis_com_vpc_flows",
                  field: "jsonPayload.src_instance.vm_name",
                },
              },
            ],
          };
        },
        {
          toolCalls: [
            {
              name: T.runRunbook,
              args: { runbook: "vpc_flows_from_instance", params: { instance: "etl-worker-1" } },
            },
          ],
        },
        finalAnswer(),
      ],
    });
    const out = await (await analyst(warehouse, model)).run(QUESTION);

    const third = model.requestsFor("log_analyst")[2]!;
    const [schema, values] = lastToolResponses(third);
    assert.equal(schema!.name, T.describeTable);
    assert.ok(
      (obj(untrusted(schema!)).columns as unknown[]).some(
        (c) => obj(c as never).name === "jsonPayload.src_instance.vm_name",
      ),
    );
    assert.equal(values!.name, T.distinctValues);
    assert.match(
      String(values!.response.summary),
      /^distinct values of jsonPayload\.src_instance\.vm_name in compute_googleapis_com_vpc_flows between 2025-06-10T21:14:27Z and 2025-06-11T04:14:27Z: \d+ shown, most frequent/,
    );
    const present = rowsOf(untrusted(values!)).map((r) => r.value);
    assert.ok(present.includes("etl-worker-1"), `values present: ${present.join(", ")}`);

    const fourth = model.requestsFor("log_analyst")[3]!;
    const rows = rowsOf(untrusted(lastToolResponses(fourth)[0]!));
    assert.equal(rows[0]!.dest_ip, "203.0.113.88");
    const queries = (obj(out.data).queries as unknown[]).map((q) => obj(q as never));
    assert.deepEqual(
      queries.map((q) => [q.tool, q.totalRows]),
      [
        [T.runRunbook, 0],
        [T.distinctValues, present.length],
        [T.runRunbook, 27],
      ],
    );
  });

  it("names similar fields when the probe's field does not exist", async () => {
    const model = new ScriptedModel({
      log_analyst: [
        {
          toolCalls: [
            { name: T.distinctValues, args: { table: "compute_googleapis_com_vpc_flows", field: "vm_name" } },
          ],
        },
        finalAnswer(),
      ],
    });
    await (await analyst(warehouse, model)).run(QUESTION);
    const [miss] = lastToolResponses(model.requestsFor("log_analyst")[1]!);
    assert.equal(miss!.response.ok, false);
    assert.match(
      String(miss!.response.summary),
      /has no field vm_name \(fields with a similar name: jsonPayload\.src_instance\.vm_name, jsonPayload\.dest_instance\.vm_name\)/,
    );
  });

  it("answers hostile or sloppy SQL with tool errors the sub-model reads, and carries on", async () => {
    const model = new ScriptedModel({
      log_analyst: [
        {
          toolCalls: [
            {
              id: "a",
              name: T.runQuery,
              args: { sql: "SELECT * FROM read_csv('/etc/passwd') WHERE timestamp > @start" },
            },
            { id: "b", name: T.runQuery, args: { sql: "DELETE FROM syslog WHERE timestamp < @start" } },
            {
              id: "c",
              name: T.runQuery,
              args: { sql: "SELECT 1 AS x FROM syslog WHERE timestamp > @start; DROP TABLE syslog" },
            },
            { id: "d", name: T.runQuery, args: { sql: "SELECT COUNT(*) AS n FROM syslog" } },
            { id: "e", name: "drop_everything", args: {} },
          ],
        },
        {
          toolCalls: [
            {
              id: "f",
              name: T.runQuery,
              args: {
                sql: "SELECT COUNT(*) AS n FROM syslog WHERE timestamp BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end AS TIMESTAMP)",
              },
            },
          ],
        },
        finalAnswer(),
      ],
    });
    const out = await (await analyst(warehouse, model)).run(QUESTION);
    assert.equal(out.ok, true, "the session itself succeeded");

    const refusals = lastToolResponses(model.requestsFor("log_analyst")[1]!);
    const codeOf = (i: number) => String(obj(obj(refusals[i]!.response.untrusted_data).error).code);
    assert.ok(refusals.every((r) => r.response.ok === false));
    assert.deepEqual(
      refusals.map((_, i) => codeOf(i)),
      ["sql_refused", "sql_refused", "sql_refused", "invalid_input", "unknown_tool"],
    );
    assert.match(String(refusals[0]!.response.summary), /function read_csv is not allowed/);
    assert.match(String(refusals[3]!.response.summary), /the query has no time bound/);
    const counted = rowsOf(untrusted(lastToolResponses(model.requestsFor("log_analyst")[2]!)[0]!));
    assert.ok(Number(counted[0]!.n) > 0, "the warehouse still answers after the refusals");
    const queries = (obj(out.data).queries as unknown[]).map((q) => obj(q as never));
    assert.deepEqual(
      queries.map((q) => q.ok),
      [false, false, false, false, true],
      "refused statements are listed as failed queries; the unknown tool is not a query",
    );
  });

  it("uses the window the main agent gives, for runbooks and @start/@end alike", async () => {
    const window = { start: "2025-06-11T02:00:00Z", end: "2025-06-11T03:00:00Z" };
    const model = new ScriptedModel({
      log_analyst: [
        {
          toolCalls: [
            {
              name: T.runRunbook,
              args: { runbook: "vpc_flows_from_instance", params: { instance: "etl-worker-1" } },
            },
          ],
        },
        finalAnswer(),
      ],
    });
    await (await analyst(warehouse, model)).run({ ...QUESTION, timeWindow: window, focus: "pool traffic" });
    const sent = model.requestsFor("log_analyst");
    const context = sent[0]!.brief as LogAnalystBrief;
    assert.deepEqual(context.window, window);
    assert.equal(context.windowSource, "request");
    assert.equal(context.focus, "pool traffic");
    assert.deepEqual(obj(untrusted(lastToolResponses(sent[1]!)[0]!).params), {
      instance: "etl-worker-1",
      ...iso(window),
    });
  });

  it("refuses a window that ends before it starts or spans more than 31 days", async () => {
    const model = new ScriptedModel({ log_analyst: [] });
    const a = await analyst(warehouse, model);
    const backwards = await a.run({
      ...QUESTION,
      timeWindow: { start: "2025-06-11T03:00:00Z", end: "2025-06-11T02:00:00Z" },
    });
    assert.match(backwards.summary, /end is before start/);
    const huge = await a.run({
      ...QUESTION,
      timeWindow: { start: "2025-01-01T00:00:00Z", end: "2025-06-11T00:00:00Z" },
    });
    assert.match(huge.summary, /longer than 31 days/);
    assert.equal(model.requests.length, 0, "no model call for a refused request");
  });

  it("repairs a final answer that is prose, once", async () => {
    const model = new ScriptedModel({ log_analyst: ["The pool got the traffic.", finalAnswer("Repaired.")] });
    const out = await (await analyst(warehouse, model)).run(QUESTION);
    const sent = model.requestsFor("log_analyst");
    assert.equal(sent.length, 2);
    assert.equal(sent[1]!.tools, undefined);
    assert.match(JSON.stringify(sent[1]!.messages.at(-1)), /Return your final answer as the JSON object/);
    assert.equal(obj(out.data).summary, "Repaired.");
  });
});

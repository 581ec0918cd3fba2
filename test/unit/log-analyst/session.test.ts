import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LogAnalystBrief } from "../../../functions/src/agent/briefs.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";
import { LogAnalystSessionSchema } from "../../../functions/src/domain/log-analyst-session.js";
import type { RecalledMemory } from "../../../functions/src/log-analyst/contract.js";
import { publishSessionsTo } from "../../../functions/src/log-analyst/publish.js";
import { LOG_ANALYST_TOOLS as T } from "../../../functions/src/log-analyst/tool-names.js";
import { factText } from "../../../functions/src/memory/fact.js";
import type { Logger } from "../../../functions/src/platform/logger.js";
import type { EventBus } from "../../../functions/src/ports/event-bus.js";
import type { LogWarehouse } from "../../../functions/src/ports/log-warehouse.js";
import { sampleFact } from "../../helpers/memory-facts.js";
import { ScriptedModel, type ScriptStep } from "../../helpers/scripted-model.js";
import { analyst, callContext, finalAnswer, obj, openCryptoLogs } from "./support.js";

const QUESTION = { request: "Did etl-worker-1 resolve xmr.pool-relay.top, and what did it resolve to?" };
const MEMORIES: RecalledMemory[] = [
  {
    id: "mem-dns-dot",
    fact: {
      kind: "column_format",
      table: "dns_googleapis_com_dns_queries",
      column: "jsonPayload.queryName",
      format: "dns_name_trailing_dot",
    },
  },
  {
    id: "mem-vm-name",
    fact: {
      kind: "query_shape",
      table: "compute_googleapis_com_vpc_flows",
      filters: [{ column: "jsonPayload.src_instance.vm_name", test: "equals" }],
    },
  },
];

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const logger: Logger & { warnings: string[] } = {
    warnings,
    debug: () => {},
    info: () => {},
    warn: (message) => {
      warnings.push(message);
    },
    error: () => {},
    child: () => logger,
  };
  return logger;
}

describe("log_analysis: memories in, session record out", () => {
  let warehouse: LogWarehouse;
  before(async () => {
    warehouse = await openCryptoLogs();
  });
  after(async () => {
    await warehouse.close();
  });

  it("recalls memories for the request and puts them, with their ids, into the first request as data", async () => {
    const asked: string[] = [];
    const model = new ScriptedModel({ log_analyst: [finalAnswer()] });
    const a = await analyst(warehouse, model, {
      recall: async (request) => {
        asked.push(request);
        return MEMORIES;
      },
    });
    const out = await a.run(QUESTION);

    assert.deepEqual(asked, [QUESTION.request]);
    const [first] = model.requestsFor("log_analyst");
    const prompt = first!.messages[0];
    assert.ok(prompt?.role === "user");
    const fence = /<<<UNTRUSTED_DATA kind="recalled_memories">>>\n([\s\S]*?)\n<<<END_UNTRUSTED_DATA>>>/.exec(
      prompt.text,
    );
    assert.ok(fence, "the memories are fenced as data");
    // The prompt shows each fact as the sentence written from its fields.
    assert.deepEqual(
      JSON.parse(fence[1]!),
      MEMORIES.map((m) => ({ id: m.id, fact: factText(m.fact) })),
    );
    assert.deepEqual((first!.brief as LogAnalystBrief).memories, MEMORIES);
    assert.deepEqual(obj(out.data).recalledMemoryIds, ["mem-dns-dot", "mem-vm-name"]);
    assert.deepEqual(a.sessions[0]?.recalledMemoryIds, ["mem-dns-dot", "mem-vm-name"]);
  });

  it("keeps at most 32 well-formed memories, and runs without them when recall fails", async () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ id: `m${i}`, fact: sampleFact(i) }));
    const broken = { id: "", fact: sampleFact(0) } as RecalledMemory;
    const prose = { id: "m-prose", claim: "The backup job is approved." } as unknown as RecalledMemory;
    const model = new ScriptedModel({ log_analyst: [finalAnswer(), finalAnswer()] });
    const a = await analyst(warehouse, model, { recall: async () => [broken, prose, ...many] });
    await a.run(QUESTION);
    const context = model.requestsFor("log_analyst")[0]!.brief as LogAnalystBrief;
    assert.equal(context.memories.length, 32);
    assert.equal(context.memories[0]?.id, "m0");

    const logger = recordingLogger();
    const failing = await analyst(warehouse, model, {
      recall: async () => {
        throw new Error("vector index unavailable");
      },
    });
    const out = await failing.run(QUESTION, { ...callContext(), logger });
    assert.equal(out.ok, true);
    assert.deepEqual(obj(out.data).recalledMemoryIds, []);
    const prompt = model.requestsFor("log_analyst")[1]!.messages[0];
    assert.ok(
      prompt?.role === "user" && prompt.text.includes("No memories were recalled for this question."),
    );
    assert.ok(logger.warnings.includes("memory recall failed; the log analyst runs without memories"));
  });

  it("hands publishSession a valid session: deterministic id, step, request, transcript, answer", async () => {
    const model = new ScriptedModel({
      log_analyst: [
        {
          toolCalls: [
            {
              name: T.runRunbook,
              args: { runbook: "dns_queries_for_domain", params: { domain: "xmr.pool-relay.top" } },
            },
          ],
        },
        finalAnswer("etl-worker-1 resolved xmr.pool-relay.top to 203.0.113.88."),
      ],
    });
    const a = await analyst(warehouse, model, { recall: async () => MEMORIES });
    await a.run(QUESTION, callContext({ stepId: "dns-pool", toolCallId: "dns-pool-r1-0-main" }));

    assert.equal(a.sessions.length, 1);
    const session = LogAnalystSessionSchema.parse(a.sessions[0]);
    assert.match(session.sessionId, /^log_analyst-[0-9a-f]{40}$/);
    assert.equal(session.investigationId, "inv-test");
    assert.equal(session.stepId, "dns-pool");
    assert.equal(session.agent, "log_analyst");
    assert.equal(session.request, QUESTION.request);
    assert.deepEqual(session.recalledMemoryIds, ["mem-dns-dot", "mem-vm-name"]);
    assert.deepEqual(
      session.transcript.map((t) => t.role),
      ["user", "model", "tool", "model", "model"],
    );
    assert.deepEqual(session.transcript[1]?.toolCalls, [
      {
        name: T.runRunbook,
        args: { runbook: "dns_queries_for_domain", params: { domain: "xmr.pool-relay.top" } },
      },
    ]);
    assert.equal(session.transcript[2]?.toolResults?.[0]?.ok, true);
    assert.match(
      String(session.transcript[2]?.toolResults?.[0]?.summary),
      /^runbook dns_queries_for_domain: \d+ row\(s\)/,
    );
    assert.match(
      session.answer,
      /^\[answered\] etl-worker-1 resolved xmr\.pool-relay\.top to 203\.0\.113\.88\./,
    );
    assert.equal(session.model, "scripted");
    assert.equal(session.finishedAt, "2025-06-12T09:00:00.000Z");
  });

  it("derives the session id from investigation, step and tool call: the same call, the same id", async () => {
    const model = new ScriptedModel({ log_analyst: [finalAnswer(), finalAnswer(), finalAnswer()] });
    const a = await analyst(warehouse, model);
    await a.run(QUESTION, callContext({ stepId: "s1", toolCallId: "c1" }));
    await a.run(
      { request: "A different question about the same call id." },
      callContext({ stepId: "s1", toolCallId: "c1" }),
    );
    await a.run(QUESTION, callContext({ stepId: "s1", toolCallId: "c2" }));
    const [one, again, other] = a.sessions.map((s) => s.sessionId);
    assert.equal(one, again, "a redelivered call keeps its id");
    assert.notEqual(one, other);
  });

  it("bounds the transcript of a long session, keeping the question and the latest rounds", async () => {
    const verbose: ScriptStep = () => ({
      text: "x".repeat(1_500),
      toolCalls: [{ name: T.describeTable, args: { table: "cloudaudit_googleapis_com_activity" } }],
    });
    const model = new ScriptedModel({
      log_analyst: [...Array.from({ length: 16 }, () => verbose), finalAnswer()],
    });
    const a = await analyst(warehouse, model, { recall: async () => MEMORIES, maxTranscriptBytes: 6_000 });
    const out = await a.run(QUESTION);
    const session = LogAnalystSessionSchema.parse(a.sessions[0]);
    assert.ok(Buffer.byteLength(JSON.stringify(session.transcript)) <= 6_000);
    assert.equal(session.transcript[0]?.role, "user");
    assert.match(
      String(session.transcript[1]?.text),
      /^\[\d+ earlier turn\(s\) omitted to keep this session record under 6000 bytes\]$/,
    );
    assert.equal(
      session.transcript[2]?.role,
      "model",
      "what is kept starts with the calls its tool turn answers",
    );
    assert.equal(session.transcript.at(-1)?.role, "model");
    assert.deepEqual(session.recalledMemoryIds, ["mem-dns-dot", "mem-vm-name"]);
    assert.equal(obj(out.data).capReached, true);
  });

  it("still answers when publishing the session fails", async () => {
    const model = new ScriptedModel({ log_analyst: [finalAnswer()] });
    const logger = recordingLogger();
    const a = await analyst(warehouse, model, {
      publishSession: async () => {
        throw new Error("pubsub down");
      },
    });
    const out = await a.run(QUESTION, { ...callContext(), logger });
    assert.equal(out.ok, true);
    assert.ok(logger.warnings.includes("log-analysis session could not be published"));
  });

  it("publishes sessions to agent-sessions with their ids as attributes", async () => {
    const published: { topic: string; data: JsonObject; attributes?: Record<string, string> }[] = [];
    const bus: EventBus = {
      publish: async (topic, data, attributes) => {
        published.push({ topic, data, ...(attributes ? { attributes } : {}) });
        return "m-1";
      },
    };
    const model = new ScriptedModel({ log_analyst: [finalAnswer()] });
    const a = await analyst(warehouse, model, { publishSession: publishSessionsTo(bus, recordingLogger()) });
    await a.run(QUESTION, callContext({ stepId: "s9", toolCallId: "c9" }));
    assert.equal(published.length, 1);
    const [message] = published;
    assert.equal(message?.topic, "agent-sessions");
    const session = LogAnalystSessionSchema.parse(message?.data);
    assert.deepEqual(message?.attributes, { sessionId: session.sessionId, investigationId: "inv-test" });
  });
});

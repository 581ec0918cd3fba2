import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CompressorBrief } from "../../../../functions/src/agent/briefs.js";
import { HistoryTooSmallError } from "../../../../functions/src/agent/compression/errors.js";
import { historyIocs } from "../../../../functions/src/agent/compression/iocs.js";
import { splitHistory } from "../../../../functions/src/agent/compression/split.js";
import {
  APPENDED_IOCS_HEADING,
  isSummaryMessage,
  SUMMARY_MARKER,
} from "../../../../functions/src/agent/compression/summary-message.js";
import { compressHistory } from "../../../../functions/src/agent/compressor.js";
import { ModelUnavailableError, TokenLimitError } from "../../../../functions/src/domain/errors.js";
import { iocKey } from "../../../../functions/src/domain/ioc.js";
import type { GenerateRequest, Message } from "../../../../functions/src/model/port.js";
import { promptFor } from "../../../helpers/brief-prompt.js";
import { ScriptedModel } from "../../../helpers/scripted-model.js";
import { splitFences } from "../../prompts/support.js";
import { buildCorpus } from "./corpus.js";

const ctx = (r: GenerateRequest) => r.brief as CompressorBrief;

/** A summary that keeps the gist and, like a careless LLM, only the first `keep` indicators. */
function lossySummary(keep: number) {
  return (request: GenerateRequest) => {
    const kept = ctx(request)
      .iocs.slice(0, keep)
      .map((i) => i.value);
    return [
      "Goal: decide whether the finding is malicious.",
      `Findings: suspicious activity by a service account; indicators seen include ${kept.join(", ") || "several external hosts"}.`,
      "Status: partly answered. Next steps: check the remaining flows.",
    ].join("\n");
  };
}

const text = (m: Message | undefined) => (m?.role === "user" ? m.text : "");

describe("compressHistory", () => {
  const [history] = buildCorpus(1, 99);
  const messages = history!.messages;

  it("sends the oldest part, fenced as data, with its indicators, and keeps the rest verbatim", async () => {
    const model = new ScriptedModel({ compressor: [lossySummary(1000)] });
    const outcome = await compressHistory({ messages, model, investigationId: "inv-x" });
    const split = splitHistory(messages);

    assert.equal(model.requests.length, 1);
    const request = model.requests[0]!;
    assert.equal(request.brief.role, "compressor");
    assert.equal(request.investigationId, "inv-x");
    const rendered = promptFor(request.brief);
    assert.equal(request.system, rendered.system, "the prompt is the brief's rendering (decision 0042)");
    assert.deepEqual(request.messages, [{ role: "user", text: rendered.user }]);
    assert.match(request.system, /Every indicator exactly as written/);
    assert.match(request.system, /Tool-call mechanics/);
    const { fences } = splitFences(text(request.messages[0]));
    const history = fences.find((f) => f.kind === "conversation_history");
    assert.ok(history, "the conversation is fenced as data");
    assert.deepEqual(JSON.parse(history.body), JSON.parse(JSON.stringify(split.compressed)));
    const listed = fences.find((f) => f.kind === "indicators");
    assert.deepEqual(
      (JSON.parse(listed?.body ?? "[]") as { value: string }[]).map((i) => i.value),
      historyIocs(split.compressed).map((i) => i.value),
    );
    assert.deepEqual(ctx(request).messages, split.compressed);

    assert.equal(outcome.summarizedBy, "model");
    assert.ok(isSummaryMessage(outcome.messages[0]));
    assert.ok(text(outcome.messages[0]).startsWith(`${SUMMARY_MARKER}\n`));
    assert.deepEqual(outcome.messages.slice(1), split.kept, "the newest messages are kept verbatim");
    assert.equal(outcome.replacedMessages, split.compressed.length);
    assert.deepEqual(outcome.appended, [], "a summary that kept every indicator needs no appendix");
    assert.ok(!text(outcome.messages[0]).includes(APPENDED_IOCS_HEADING));
    assert.ok(outcome.bytes.after < outcome.bytes.before);
  });

  it("shows the model no thought signatures, and keeps them on the calls it leaves verbatim", async () => {
    const signed = messages.map(
      (m, i): Message =>
        m.role === "model" && m.toolCalls
          ? { ...m, toolCalls: m.toolCalls.map((c) => ({ ...c, signature: `sig-${i}-${c.id}` })) }
          : m,
    );
    assert.ok(
      signed.some((m) => m.role === "model" && m.toolCalls?.length),
      "the corpus has tool calls",
    );
    const model = new ScriptedModel({ compressor: [lossySummary(1000)] });
    const outcome = await compressHistory({ messages: signed, model });
    const request = model.requests[0]!;
    assert.doesNotMatch(JSON.stringify(request.messages), /sig-\d+-/);
    assert.doesNotMatch(JSON.stringify(ctx(request).messages), /sig-\d+-/);
    const split = splitHistory(signed);
    assert.deepEqual(outcome.messages.slice(1), split.kept, "kept calls still carry their signatures");
    const keptCalls = split.kept.flatMap((m) => (m.role === "model" ? (m.toolCalls ?? []) : []));
    assert.ok(keptCalls.length > 0, "the kept part has tool calls");
    assert.ok(keptCalls.every((c) => c.signature?.startsWith("sig-")));
  });

  it("appends, as a marked list, exactly the indicators the summary dropped", async () => {
    const model = new ScriptedModel({ compressor: [lossySummary(2)] });
    const outcome = await compressHistory({ messages, model });
    const required = historyIocs(splitHistory(messages).compressed);
    const named = new Set(required.slice(0, 2).map(iocKey));
    const inKept = new Set(historyIocs(outcome.messages.slice(1)).map(iocKey));
    const dropped = required.filter((i) => !named.has(iocKey(i)) && !inKept.has(iocKey(i)));
    assert.ok(dropped.length > 0);
    assert.deepEqual(outcome.appended.map(iocKey), dropped.map(iocKey));
    const lines = text(outcome.messages[0]).split("\n");
    const heading = lines.indexOf(APPENDED_IOCS_HEADING);
    assert.ok(heading > 0, "the appendix is marked");
    assert.deepEqual(
      lines.slice(heading + 1),
      dropped.map((i) => `- ${i.type}: ${i.value}`),
    );
  });

  it("without an LLM (offline model) the rules write the summary and no request is sent", async () => {
    const model = new ScriptedModel({}, { offline: true });
    const outcome = await compressHistory({ messages, model });
    assert.equal(model.requests.length, 0);
    assert.equal(outcome.summarizedBy, "rules");
    assert.match(text(outcome.messages[0]), /called log_query/);
    assert.match(text(outcome.messages[0]), /Task:\nInvestigation objective/);
    assertRetained(messages, outcome.messages);
  });

  it("falls back to the rules when the summary request itself is refused, and retries nothing on outages", async () => {
    const refused = new ScriptedModel({
      compressor: [new TokenLimitError("too long", 2_000_000, 1_048_576)],
    });
    const outcome = await compressHistory({ messages, model: refused });
    assert.equal(outcome.summarizedBy, "rules");
    assert.match(outcome.rulesBecause ?? "", /too long/);
    assertRetained(messages, outcome.messages);

    const down = new ScriptedModel({ compressor: [new ModelUnavailableError("503")] });
    await assert.rejects(compressHistory({ messages, model: down }), ModelUnavailableError);
  });

  it("refuses with HistoryTooSmallError when the summary would not be smaller than what it replaces", async () => {
    const small: Message[] = [
      { role: "user", text: "check 203.0.113.9" },
      { role: "model", toolCalls: [{ id: "a", name: "log_query", args: {} }] },
      { role: "tool", responses: [{ id: "a", name: "log_query", response: { rows: [] } }] },
    ];
    const model = new ScriptedModel({
      compressor: ["A long summary that is longer than the message it replaces."],
    });
    await assert.rejects(compressHistory({ messages: small, model }), HistoryTooSmallError);
  });
});

describe("IOC retention over a corpus of GCP investigation histories", () => {
  const corpus = buildCorpus(24);

  it("keeps 100% of the indicators of the compressed part even when the summary drops most of them", async (t) => {
    let required = 0;
    let retained = 0;
    let appended = 0;
    let before = 0;
    let after = 0;
    for (const [i, history] of corpus.entries()) {
      // Vary how lossy the "model" is: none kept, a few, or all but defanged.
      const step = i % 3 === 0 ? lossySummary(0) : i % 3 === 1 ? lossySummary(3) : defangingSummary;
      const model = new ScriptedModel({ compressor: [step] });
      const outcome = await compressHistory({ messages: history.messages, model });
      const needed = historyIocs(splitHistory(history.messages).compressed);
      const found = new Set(historyIocs(outcome.messages).map(iocKey));
      const kept = needed.filter((ioc) => found.has(iocKey(ioc)));
      for (const ioc of needed) {
        assert.ok(found.has(iocKey(ioc)), `${history.name}: ${ioc.type} ${ioc.value} lost`);
      }
      assert.ok(needed.length >= 20, `${history.name} carries a realistic number of indicators`);
      assert.ok(new Set(needed.map((i) => i.type)).size === 6, `${history.name} has all six IOC kinds`);
      required += needed.length;
      retained += kept.length;
      appended += outcome.appended.length;
      before += outcome.bytes.before;
      after += outcome.bytes.after;
      t.diagnostic(
        `${history.name}: ${outcome.bytes.before} → ${outcome.bytes.after} bytes (ratio ${(outcome.bytes.after / outcome.bytes.before).toFixed(3)}), ${needed.length} IOCs, ${outcome.appended.length} appended`,
      );
    }
    const line = `corpus of ${corpus.length}: ${before} → ${after} bytes, compressed to ${((after / before) * 100).toFixed(1)}% (ratio ${(before / after).toFixed(2)}:1); IOC retention ${retained}/${required} (${((retained / required) * 100).toFixed(1)}%), ${appended} re-added by code`;
    t.diagnostic(line);
    console.log(line);
    assert.equal(retained, required);
    assert.ok(appended > 0, "the lossy summaries really did drop indicators");
  });

  it("keeps them with the rules summary too (the offline path)", async (t) => {
    let before = 0;
    let after = 0;
    for (const history of corpus) {
      const outcome = await compressHistory({
        messages: history.messages,
        model: new ScriptedModel({}, { offline: true }),
      });
      assertRetained(history.messages, outcome.messages);
      before += outcome.bytes.before;
      after += outcome.bytes.after;
    }
    const line = `rules summaries over the corpus: ${before} → ${after} bytes (${((after / before) * 100).toFixed(1)}%)`;
    t.diagnostic(line);
    console.log(line);
  });
});

/** Writes indicators the way a chat model often does for safety: defanged, so not verbatim. */
function defangingSummary(request: GenerateRequest): string {
  const iocs = ctx(request).iocs.map((i) => i.value.replace(/\./g, "[.]").replace(/^http/, "hxxp"));
  return `Goal: triage.\nIndicators: ${iocs.join(" ")}\nStatus: open.`;
}

function assertRetained(original: readonly Message[], result: readonly Message[]): void {
  const found = new Set(historyIocs(result).map(iocKey));
  for (const ioc of historyIocs(splitHistory(original).compressed)) {
    assert.ok(found.has(iocKey(ioc)), `${ioc.type} ${ioc.value} lost`);
  }
}

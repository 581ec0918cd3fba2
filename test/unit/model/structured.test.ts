import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { ModelOutputError, ModelUnavailableError } from "../../../functions/src/domain/errors.js";
import type { GenerateRequest } from "../../../functions/src/model/port.js";
import {
  generateStructured,
  isRepairRequest,
  parseJsonText,
  REPAIR_MARKER,
  validateOrDescribe,
} from "../../../functions/src/model/structured.js";
import { someBrief } from "../../helpers/briefs.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";

const Verdict = z.object({
  verdict: z.enum(["true_positive", "false_positive"]),
  confidence: z.number().min(0).max(1),
  notes: z.array(z.string()).max(2),
});

const request: GenerateRequest = {
  brief: someBrief("concluder"),
  system: "You conclude investigations.",
  messages: [{ role: "user", text: "Conclude finding f-1." }],
};

const usage = (inputTokens: number, outputTokens: number) => ({ usage: { inputTokens, outputTokens } });

describe("generateStructured", () => {
  it("accepts a valid first answer with one call and sends the schema as JSON Schema", async () => {
    const model = new ScriptedModel([
      { json: { verdict: "true_positive", confidence: 0.9, notes: ["a"] }, ...usage(100, 20) },
    ]);
    const result = await generateStructured(model, request, Verdict);

    assert.deepEqual(result, {
      value: { verdict: "true_positive", confidence: 0.9, notes: ["a"] },
      usage: { llmCalls: 1, inputTokens: 100, outputTokens: 20 },
      calls: 1,
      model: "scripted",
    });
    assert.equal(model.calls.length, 1);
    const sent = model.requests[0]!;
    assert.equal(sent.brief.role, "concluder");
    assert.deepEqual(sent.messages, request.messages);
    assert.deepEqual(sent.responseSchema, {
      type: "object",
      properties: {
        verdict: { type: "string", enum: ["true_positive", "false_positive"] },
        confidence: { type: "number", minimum: 0, maximum: 1 },
        notes: { type: "array", maxItems: 2, items: { type: "string" } },
      },
      required: ["verdict", "confidence", "notes"],
    });
    assert.equal(request.responseSchema, undefined, "the caller's request is not mutated");
  });

  it("repairs once: the second request shows the bad output and the validation errors", async () => {
    const bad = '{"verdict":"maybe","confidence":1.5,"notes":[]}';
    const model = new ScriptedModel([
      { text: bad, ...usage(100, 20) },
      { json: { verdict: "false_positive", confidence: 0.4, notes: [] }, ...usage(130, 15), model: "other" },
    ]);
    const result = await generateStructured(model, request, Verdict);

    assert.deepEqual(result.value, { verdict: "false_positive", confidence: 0.4, notes: [] });
    assert.deepEqual(result.usage, { llmCalls: 2, inputTokens: 230, outputTokens: 35 });
    assert.equal(result.calls, 2);
    assert.equal(result.model, "other");

    const repair = model.requests[1]!;
    assert.equal(repair.brief.role, "concluder", "the role stays the original one");
    assert.deepEqual(repair.responseSchema, model.requests[0]!.responseSchema);
    assert.equal(repair.messages.length, 3);
    assert.deepEqual(repair.messages[0], request.messages[0]);
    assert.deepEqual(repair.messages[1], { role: "model", text: bad });
    const last = repair.messages[2]!;
    assert.equal(last.role, "user");
    assert.ok(last.role === "user" && last.text.startsWith(REPAIR_MARKER));
    assert.match(
      last.role === "user" ? last.text : "",
      /- \$\.verdict: Invalid option: expected one of "true_positive"\|"false_positive"/,
    );
    assert.match(
      last.role === "user" ? last.text : "",
      /- \$\.confidence: Too big: expected number to be <=1/,
    );
    assert.equal(isRepairRequest(repair), true);
    assert.equal(isRepairRequest(model.requests[0]!), false);
  });

  it("gives up after exactly two calls with ModelOutputError listing the issues", async () => {
    const model = new ScriptedModel([
      { json: { verdict: "maybe", confidence: 0.5, notes: [] } },
      { json: { verdict: "true_positive", confidence: 0.5, notes: ["a", "b", "c"] } },
      { json: { verdict: "true_positive", confidence: 0.5, notes: [] } },
    ]);
    await assert.rejects(generateStructured(model, request, Verdict), (error: unknown) => {
      assert.ok(error instanceof ModelOutputError);
      assert.equal(error.retryable, false);
      assert.deepEqual(error.details?.issues, ["$.notes: Too big: expected array to have <=2 items"]);
      assert.deepEqual(error.details?.firstIssues, [
        '$.verdict: Invalid option: expected one of "true_positive"|"false_positive"',
      ]);
      assert.equal(error.details?.calls, 2);
      assert.equal(error.details?.role, "concluder");
      return true;
    });
    assert.equal(model.calls.length, 2);
    assert.equal(model.remaining(), 1);
  });

  it("treats non-JSON text as invalid and repairs it", async () => {
    const model = new ScriptedModel([
      "I think this is a true positive.",
      "```json\n" + '{"verdict":"true_positive","confidence":0.8,"notes":[]}' + "\n```",
    ]);
    const result = await generateStructured(model, request, Verdict);
    assert.equal(result.value.verdict, "true_positive");
    const last = model.requests[1]!.messages.at(-1)!;
    assert.ok(last.role === "user");
    assert.match(last.text, /\$: the answer is not valid JSON/);
    assert.deepEqual(model.requests[1]!.messages[1], {
      role: "model",
      text: "I think this is a true positive.",
    });
  });

  it("does not repair when asked not to", async () => {
    const model = new ScriptedModel([
      "nope",
      { json: { verdict: "true_positive", confidence: 1, notes: [] } },
    ]);
    await assert.rejects(generateStructured(model, request, Verdict, { repair: false }), ModelOutputError);
    assert.equal(model.calls.length, 1);
  });

  it("lets provider errors through without a repair attempt", async () => {
    const model = new ScriptedModel([new ModelUnavailableError("503")]);
    await assert.rejects(generateStructured(model, request, Verdict), ModelUnavailableError);
    assert.equal(model.calls.length, 1);
  });

  it("reports a tool call where JSON was required", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "query_logs", args: {} }] },
      { json: { verdict: "true_positive", confidence: 1, notes: [] } },
    ]);
    await generateStructured(model, request, Verdict);
    const last = model.requests[1]!.messages.at(-1)!;
    assert.ok(last.role === "user");
    assert.match(last.text, /\$: the answer was empty, expected JSON/);
    assert.match(last.text, /a tool call was made where a JSON answer was required/);
  });
});

describe("parseJsonText", () => {
  it("reads plain JSON, fenced JSON and rejects prose and emptiness", () => {
    assert.deepEqual(parseJsonText(' {"a":1} '), { ok: true, value: { a: 1 } });
    assert.deepEqual(parseJsonText('```json\n{"a":[1,2]}\n```'), { ok: true, value: { a: [1, 2] } });
    assert.deepEqual(parseJsonText('```\n{"a":true}\n```'), { ok: true, value: { a: true } });
    assert.equal(parseJsonText("Here you go: {}").ok, false);
    assert.deepEqual(parseJsonText("  "), { ok: false, issue: "$: the answer was empty, expected JSON" });
    assert.equal(parseJsonText(undefined).ok, false);
  });
});

describe("validateOrDescribe", () => {
  const Args = z.object({
    ip: z.ipv4(),
    hours: z.number().int().min(1),
    tags: z.array(z.string()).optional(),
  });

  it("returns the parsed value when valid", () => {
    assert.deepEqual(validateOrDescribe(Args, { ip: "10.0.0.1", hours: 2 }), {
      ok: true,
      value: { ip: "10.0.0.1", hours: 2 },
    });
  });

  it("describes each issue with its JSON path", () => {
    const result = validateOrDescribe(Args, { ip: "nope", hours: 0, tags: ["x", 3] });
    assert.deepEqual(result, {
      ok: false,
      issues: [
        "$.ip: Invalid IPv4 address",
        "$.hours: Too small: expected number to be >=1",
        "$.tags[1]: Invalid input: expected string, received number",
      ],
      message:
        "$.ip: Invalid IPv4 address; $.hours: Too small: expected number to be >=1; $.tags[1]: Invalid input: expected string, received number",
    });
  });
});

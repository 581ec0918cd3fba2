import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { FinishReason } from "@google/genai";
import { ModelOutputError } from "../../../functions/src/domain/errors.js";
import { ModelGlitchError, RequestRejectedError } from "../../../functions/src/model/errors.js";
import { withFallback } from "../../../functions/src/model/fallback.js";
import { GeminiModel } from "../../../functions/src/model/gemini.js";
import type { GenerateRequest } from "../../../functions/src/model/port.js";
import { nudgeText, withRetry } from "../../../functions/src/model/retry.js";
import { someBrief } from "../../helpers/briefs.js";
import { FakeGemini, geminiAnswer } from "../../helpers/fake-gemini.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";

/**
 * The Gemini 3 defects of issue 26, each against the strict fake (test/helpers/gemini-rules.ts):
 * SDK continuation, output caps without room for thinking, TOO_MANY_TOOL_CALLS, every finish
 * reason, and a 400 caused by ferret's own request.
 */
const server = new FakeGemini();
let baseUrl = "";
before(async () => {
  baseUrl = await server.start();
});
after(async () => {
  await server.stop();
});
beforeEach(() => {
  server.reset();
});

const gemini = (extra: ConstructorParameters<typeof GeminiModel>[0] = {}) =>
  new GeminiModel({ apiKey: "k", baseUrl, ...extra });
const noWait = { sleep: async () => {}, random: () => 0 };

const stepExecutorTurn: GenerateRequest = {
  brief: someBrief("executor"),
  system: "You carry out one step.",
  messages: [{ role: "user", text: "Step s1: count flows to 45.9.148.108." }],
};

describe("continuation (finish reason CONTINUATION with a token)", () => {
  it("is continued by the adapter, one counted request per hop, the prompt counted once as context", async () => {
    server.reply(
      {
        json: {
          candidates: [
            {
              content: { role: "model", parts: [{ text: '{"outcome":"answered",' }] },
              finishReason: "CONTINUATION",
              continuationToken: "Y29udGludWUtMQ==",
            },
          ],
          usageMetadata: {
            promptTokenCount: 900,
            candidatesTokenCount: 40,
            thoughtsTokenCount: 100,
            totalTokenCount: 1040,
          },
        },
      },
      geminiAnswer([{ text: '"summary":"x"}' }], {
        usageMetadata: { promptTokenCount: 900, candidatesTokenCount: 10, totalTokenCount: 910 },
      }),
    );
    const response = await gemini().generate(stepExecutorTurn);

    assert.equal(server.requests.length, 2);
    const [first, second] = server.requests.map(
      (r) => r.body as { contents: unknown; continuationToken?: string },
    );
    assert.equal(first!.continuationToken, undefined);
    assert.equal(second!.continuationToken, "Y29udGludWUtMQ==");
    assert.deepEqual(second!.contents, first!.contents, "a hop repeats the request");
    assert.equal(response.text, '{"outcome":"answered","summary":"x"}');
    assert.equal(response.finishReason, "STOP");
    // Each hop is a request the provider bills; the context is the one prompt.
    assert.equal(response.usage.llmCalls, 2);
    assert.equal(response.usage.inputTokens, 1_800);
    assert.equal(response.usage.outputTokens, 40 + 100 + 10);
    assert.equal(response.promptTokens, 900);
  });

  it("an answer still unfinished after the hop limit is a failed answer, its hops billed", async () => {
    const hop = (n: number) => ({
      json: {
        candidates: [
          {
            content: { role: "model", parts: [{ text: `part ${n} ` }] },
            finishReason: "CONTINUATION",
            continuationToken: `dG9rLQ${n}`,
          },
        ],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      },
    });
    server.reply(hop(1), hop(2), hop(3), hop(4), hop(5));
    await assert.rejects(gemini().generate(stepExecutorTurn), (error) => {
      assert.ok(error instanceof ModelOutputError);
      assert.ok(!(error instanceof ModelGlitchError));
      assert.match(error.message, /CONTINUATION/);
      assert.equal((error.details?.usage as { llmCalls?: number } | undefined)?.llmCalls, 5);
      return true;
    });
    assert.equal(server.requests.length, 5);
  });
});

describe("output caps on Gemini 3 leave room for thinking", () => {
  it("the executor on Flash-Lite at MEDIUM finishes an answer after 6,000 thinking tokens", async () => {
    // Thinking counts against maxOutputTokens: the fake cuts an answer past the request's cap
    // and ends it MAX_TOKENS, as Gemini 3 does (vectorize-io/hindsight#3365).
    server.reply(
      geminiAnswer([{ text: '{"outcome":"no_data","summary":"none","facts":[],"iocs":[]}' }], {
        usageMetadata: {
          promptTokenCount: 2_000,
          candidatesTokenCount: 300,
          thoughtsTokenCount: 6_000,
          totalTokenCount: 8_300,
        },
      }),
    );
    const response = await gemini().generate(stepExecutorTurn);
    const sent = server.requests[0]!;
    assert.equal(sent.model, "gemini-3.1-flash-lite");
    const cap = (sent.body as { generationConfig: { maxOutputTokens: number } }).generationConfig
      .maxOutputTokens;
    assert.ok(
      cap >= 4_096 + 6_000,
      `cap ${cap} leaves the 4,096-token answer room after 6,000 thinking tokens`,
    );
    assert.equal(response.finishReason, "STOP");
    assert.equal(response.usage.thinkingTokens, 6_000);
  });

  it("never asks for more than the models' 65,536 output tokens", async () => {
    server.reply(geminiAnswer([{ text: "ok" }]));
    await gemini({
      roles: {
        planner: { model: "main", thinkingLevel: "high", thinkingBudget: 1_024, maxOutputTokens: 60_000 },
      },
    }).generate({ ...stepExecutorTurn, brief: someBrief("planner") });
    const sent = server.requests[0]!;
    assert.equal(sent.refusedBy, undefined);
    assert.equal(
      (sent.body as { generationConfig: { maxOutputTokens: number } }).generationConfig.maxOutputTokens,
      65_536,
    );
  });
});

describe("TOO_MANY_TOOL_CALLS", () => {
  it("is asked again once with a nudge to call fewer tools, and the second answer is used", async () => {
    server.reply(
      geminiAnswer([], {
        candidates: [{ content: { role: "model", parts: [] }, finishReason: "TOO_MANY_TOOL_CALLS" }],
      }),
      geminiAnswer([{ text: '{"outcome":"answered","summary":"ok","facts":[],"iocs":[]}' }]),
    );
    const retried: boolean[] = [];
    const model = withRetry(gemini(), { ...noWait, onRetry: (info) => retried.push(info.nudged === true) });
    const response = await model.generate(stepExecutorTurn);

    assert.match(response.text ?? "", /answered/);
    assert.deepEqual(retried, [true]);
    assert.equal(server.requests.length, 2);
    const lastUser = server.requests[1]!.contents.at(-1)!;
    const nudge = lastUser.parts.at(-1)!.text ?? "";
    assert.match(nudge, /too many functions/);
    assert.equal(
      nudge,
      nudgeText(new ModelGlitchError("x", "too_many_tool_calls", {})),
      "the nudge names the failure",
    );
    assert.equal(response.usage.llmCalls, 2, "both calls counted");
  });
});

describe("every finish reason of @google/genai 3.1.0 has a decided outcome", () => {
  /**
   * What each reason means (SDK doc comments on FinishReason) and what ferret does: the answer is
   * used, asked again with a nudge (a passing slip), or final (filtered, or cut short).
   */
  const EXPECTED: Record<string, "answer" | "nudge" | "final"> = {
    FINISH_REASON_UNSPECIFIED: "answer",
    STOP: "answer",
    MAX_TOKENS: "final",
    SAFETY: "final",
    RECITATION: "final",
    LANGUAGE: "final",
    OTHER: "nudge",
    BLOCKLIST: "final",
    PROHIBITED_CONTENT: "final",
    SPII: "final",
    MALFORMED_FUNCTION_CALL: "nudge",
    IMAGE_SAFETY: "final",
    UNEXPECTED_TOOL_CALL: "nudge",
    TOO_MANY_TOOL_CALLS: "nudge",
    IMAGE_PROHIBITED_CONTENT: "final",
    NO_IMAGE: "nudge",
    IMAGE_RECITATION: "final",
    IMAGE_OTHER: "nudge",
    // Without a token to continue from there is nothing to continue: the answer is cut short.
    CONTINUATION: "final",
    MALFORMED_RESPONSE: "nudge",
  };

  it("covers the SDK's whole enum", () => {
    assert.deepEqual(Object.values(FinishReason).sort(), Object.keys(EXPECTED).sort());
  });

  for (const [reason, expected] of Object.entries(EXPECTED)) {
    it(`${reason} → ${expected}`, async () => {
      server.reply(
        geminiAnswer([{ text: '{"ok":true}' }], {
          candidates: [
            { content: { role: "model", parts: [{ text: '{"ok":true}' }] }, finishReason: reason },
          ],
        }),
      );
      const outcome = await gemini()
        .generate(stepExecutorTurn)
        .then(
          () => "answer",
          (error: unknown) =>
            error instanceof ModelGlitchError
              ? "nudge"
              : error instanceof ModelOutputError
                ? "final"
                : String(error),
        );
      assert.equal(outcome, expected);
    });
  }
});

describe("a 400 caused by ferret's own request", () => {
  it("is ferret's bug, not retried, and the call continues on the offline model", async () => {
    // A history whose tool turn answers one of the model's two calls: Gemini refuses it (the
    // fake answers with the recorded 400), whichever model family.
    const primary = withRetry(gemini(), noWait);
    const offline = new ScriptedModel(["offline answer"], { name: "offline-playbook", offline: true });
    const reasons: unknown[] = [];
    const model = withFallback(primary, offline, { onFallback: (reason) => reasons.push(reason.error) });
    const response = await model.generate({
      ...stepExecutorTurn,
      messages: [
        ...stepExecutorTurn.messages,
        {
          role: "model",
          toolCalls: [
            { id: "c1", name: "count_flows", args: {} },
            { id: "c2", name: "lookup_ip", args: {} },
          ],
        },
        { role: "tool", responses: [{ id: "c1", name: "count_flows", response: { ok: true } }] },
      ],
    });

    assert.equal(response.text, "offline answer");
    assert.equal(server.requests.length, 1, "not retried: the same request would be refused again");
    assert.equal(server.requests[0]!.refusedBy, "function-response-count");
    const [error] = reasons;
    assert.ok(error instanceof RequestRejectedError);
    assert.equal(error.ferretBug, true);
    assert.match(error.message, /Please ensure that the number of function response parts is equal/);
    assert.match(error.message, /a ferret bug/);
  });
});

describe("thinking levels a model does not take", () => {
  it("are moved to the nearest it does, instead of a 400 on every call of the role", async () => {
    const cases: Array<[string, "minimal" | "low" | "medium" | "high", string]> = [
      ["gemini-3-pro-preview", "medium", "HIGH"],
      ["gemini-3-pro-preview", "minimal", "LOW"],
      ["gemini-3.1-pro-preview", "minimal", "LOW"],
      ["gemini-3.1-pro-preview", "medium", "MEDIUM"],
      ["gemini-3.1-flash-lite", "minimal", "MINIMAL"],
    ];
    for (const [model, thinkingLevel, sent] of cases) {
      server.reset().reply(geminiAnswer([{ text: "ok" }]));
      await gemini({
        model,
        roles: { planner: { model: "main", thinkingLevel, thinkingBudget: 0, maxOutputTokens: 1_024 } },
      }).generate({ ...stepExecutorTurn, brief: someBrief("planner") });
      const request = server.requests[0]!;
      assert.equal(request.refusedBy, undefined, `${model} ${thinkingLevel}`);
      assert.deepEqual(
        (request.body as { generationConfig: { thinkingConfig: unknown } }).generationConfig.thinkingConfig,
        { thinkingLevel: sent },
      );
    }
  });
});

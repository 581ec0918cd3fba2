import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import { type Content, type GenerateContentResponse, GoogleGenAI } from "@google/genai";
import { DEFAULT_PRICES } from "../../../functions/src/config/model-settings.js";
import { ModelOutputError, ModelUnavailableError } from "../../../functions/src/domain/errors.js";
import {
  classifyProviderError,
  ModelGlitchError,
  ProviderUnavailableError,
  RequestRejectedError,
} from "../../../functions/src/model/errors.js";
import { withFallback } from "../../../functions/src/model/fallback.js";
import { GeminiModel } from "../../../functions/src/model/gemini.js";
import { usageOf } from "../../../functions/src/model/gemini-mapping.js";
import type { GenerateRequest, ToolDeclaration } from "../../../functions/src/model/port.js";
import { withRetry } from "../../../functions/src/model/retry.js";
import { someBrief } from "../../helpers/briefs.js";
import { FakeGemini, type FakeReply, textAnswer } from "../../helpers/fake-gemini.js";
import { ScriptedModel } from "../../helpers/scripted-model.js";

/**
 * Real responses, replayed through the real SDK into ferret's adapter: what Gemini and Vertex
 * actually sent (recorded by @google/genai's own system tests, or quoted in public issues;
 * see test/fixtures/real/gemini/PROVENANCE.md). The fake server only serves the bytes.
 */
const ROOT = join(import.meta.dirname, "../../fixtures/real/gemini");

interface Recording {
  interactions: Array<{
    request: { url: string; bodySegments: unknown[] };
    response: { statusCode: number; bodySegments: unknown[] };
  }>;
}

function recording(name: string): Recording {
  return JSON.parse(readFileSync(join(ROOT, "js-genai", `${name}.json`), "utf8")) as Recording;
}

/** The recorded response of one interaction, as the fake server's reply. */
function recorded(name: string, index = 0): FakeReply {
  const { response } = recording(name).interactions[index]!;
  return { status: response.statusCode, json: response.bodySegments[0] };
}

/** A body quoted in a public issue (see PROVENANCE.md), served with its HTTP status. */
function quoted(file: string, status: number): FakeReply {
  return { status, raw: readFileSync(join(ROOT, "issues", file), "utf8") };
}

const server = new FakeGemini();
let baseUrl = "";
before(async () => {
  baseUrl = await server.start();
});
after(async () => {
  await server.stop();
});
beforeEach(() => {
  server.requests.length = 0;
  assert.equal(server.pending, 0, "the previous test consumed all replies");
});

/** Every role on the model the recording was made with, so paths and prices line up. */
const developer = (model: string) =>
  new GeminiModel({ apiKey: "k", baseUrl, model, liteModel: model, prices: DEFAULT_PRICES });
const vertex = (model: string) =>
  new GeminiModel({ vertexai: true, apiKey: "k", baseUrl, model, liteModel: model, prices: DEFAULT_PRICES });

const noWait = { sleep: async () => {}, random: () => 0 };

const PRINTER_TOOLS: ToolDeclaration[] = [
  {
    name: "print",
    description: "Prints a word in a colour.",
    parameters: { type: "object", properties: { text: { type: "string" }, color: { type: "string" } } },
  },
  { name: "beep", description: "Beeps.", parameters: { type: "object", properties: {} } },
];

const ask = (text: string, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  brief: someBrief("executor"),
  system: "",
  messages: [{ role: "user", text }],
  ...extra,
});

const MCP_AFC =
  "MCP_related_client_Tests_generateContent_ML_Dev_one_CallableTool_with_MCPClients_and_conduct_automated_function_calling";

describe("replay: function calls", () => {
  it("maps parallel calls where only the first carries the thought signature, and echoes them as the SDK did", async () => {
    server.reply(recorded(MCP_AFC, 0), recorded(MCP_AFC, 1));
    const model = developer("gemini-2.5-flash");
    const prompt = "Use the printer to print a simple word: hello in blue, and beep with the beeper";
    const first = await model.generate(ask(prompt, { tools: PRINTER_TOOLS }));

    assert.deepEqual(
      first.toolCalls.map((c) => [c.name, c.args, c.signature !== undefined]),
      [
        ["print", { color: "blue", text: "hello" }, true],
        ["beep", {}, false],
      ],
    );
    // Gemini 2.5 sent no call ids: ours are invented and must not go back on the wire.
    assert.ok(first.toolCalls.every((c) => c.id.startsWith("ferret-call-")));
    assert.deepEqual(first.usage, {
      llmCalls: 1,
      inputTokens: 80,
      outputTokens: 26 + 76,
      cachedInputTokens: 0,
      thinkingTokens: 76,
      costUsd: (80 * 0.3 + 102 * 2.5) / 1e6,
    });

    const second = await model.generate(
      ask(prompt, {
        tools: PRINTER_TOOLS,
        messages: [
          { role: "user", text: prompt },
          { role: "model", toolCalls: first.toolCalls },
          {
            role: "tool",
            responses: [
              {
                id: first.toolCalls[0]!.id,
                name: "print",
                response: { content: [{ text: "\u001b[34mhello\u001b[0m", type: "text" }] },
              },
              {
                id: first.toolCalls[1]!.id,
                name: "beep",
                response: { content: [{ text: "beep", type: "text" }] },
              },
            ],
          },
        ],
      }),
    );
    assert.equal(second.text, "hello \nbeep");
    // The SDK's own automatic function calling sent exactly these contents on its second request.
    const sdkSecond = recording(MCP_AFC).interactions[1]!.request.bodySegments[0] as { contents: unknown };
    assert.deepEqual((server.requests[1]!.body as { contents: unknown }).contents, sdkSecond.contents);
  });

  it("reads a Vertex function call with its signature and Vertex's usage block", async () => {
    server.reply(
      recorded(
        "Client_Tests_Vertex_AI_can_use_JSON_schema_in_parametersJsonSchema_to_build_FunctionDeclaration",
      ),
    );
    const response = await vertex("gemini-2.5-flash").generate(
      ask("put word: hello and word: world into a string"),
    );
    assert.equal(response.toolCalls.length, 1);
    assert.equal(response.toolCalls[0]!.name, "concatStringFunction");
    assert.deepEqual(response.toolCalls[0]!.args, { firstString: "hello", secondString: "world" });
    assert.match(response.toolCalls[0]!.signature ?? "", /^Ct0CAePx/);
    assert.equal(response.finishReason, "STOP");
    assert.deepEqual(
      [response.usage.inputTokens, response.usage.outputTokens, response.usage.thinkingTokens],
      [20, 9 + 79, 79],
    );
  });
});

describe("replay: thinking and output limits", () => {
  it("never takes a thought part for the answer, and a MAX_TOKENS stop is a failed answer that is not retried", async () => {
    server.reply(recorded("Client_Tests_test_thinking_generate_content_should_return_thought_field"));
    const model = withRetry(developer("gemini-2.0-flash-thinking-exp"), noWait);
    await assert.rejects(
      model.generate(ask("What is the sum of natural numbers from 1 to 100?")),
      (error) => {
        assert.ok(error instanceof ModelOutputError);
        assert.ok(!(error instanceof ModelGlitchError), "a truncated answer is final, not a glitch");
        assert.equal(error.details?.finishReason, "MAX_TOKENS");
        assert.deepEqual(error.details?.usage, {
          llmCalls: 1,
          inputTokens: 17,
          outputTokens: 19,
          cachedInputTokens: 0,
          thinkingTokens: 19,
        });
        return true;
      },
    );
    assert.equal(server.requests.length, 1);
  });

  it("treats Vertex's MAX_TOKENS with visible text as a failed answer too", async () => {
    server.reply(
      recorded("Client_Tests_generateContent_Vertex_AI_should_generate_content_with_specified_parameters"),
    );
    await assert.rejects(vertex("gemini-2.5-flash").generate(ask("why is the sky blue?")), (error) => {
      assert.ok(error instanceof ModelOutputError);
      assert.match(error.message, /MAX_TOKENS/);
      return true;
    });
  });

  it("counts cached prompt tokens and prices them at the cached rate", async () => {
    server.reply(
      recorded(
        "Client_Tests_generateContent_ML_Dev_should_generate_content_with_given_valid_json_schema_in_responseSchema",
      ),
    );
    const response = await developer("gemini-2.5-flash").generate(ask("populate the following object"));
    assert.equal(JSON.parse(response.text ?? "").inner.innerNumber, 100);
    assert.deepEqual(response.usage, {
      llmCalls: 1,
      inputTokens: 5,
      outputTokens: 238 + 41,
      cachedInputTokens: 3,
      thinkingTokens: 41,
      costUsd: (2 * 0.3 + 3 * 0.03 + 279 * 2.5) / 1e6,
    });
  });

  it("shows why thinking needs a budget: a simple JSON fill spent more on thinking than on the answer", async () => {
    server.reply(
      recorded(
        "Client_Tests_generateContent_ML_Dev_should_generate_content_with_given_valid_json_schema_in_responseJsonSchema",
      ),
    );
    const { usage } = await developer("gemini-2.5-flash").generate(ask("populate the following object"));
    assert.equal(usage.thinkingTokens, 331);
    assert.equal(usage.outputTokens - (usage.thinkingTokens ?? 0), 177);
  });
});

describe("replay: refusals and errors of both backends", () => {
  it("a blocked prompt is final: ModelOutputError with the block reason, one request", async () => {
    server.reply(quoted("gemini-api-prompt-blocked.json", 200));
    const model = withRetry(developer("gemini-1.5-flash-002"), noWait);
    await assert.rejects(model.generate(ask("…")), (error) => {
      assert.ok(error instanceof ModelOutputError);
      assert.equal(error.details?.blockReason, "PROHIBITED_CONTENT");
      assert.deepEqual(error.details?.usage, {
        llmCalls: 1,
        inputTokens: 12_559,
        outputTokens: 0,
        cachedInputTokens: 0,
        thinkingTokens: 0,
      });
      return true;
    });
    assert.equal(server.requests.length, 1);
  });

  it("a retired or unknown model (recorded 404) is not retried, and the offline fallback finishes the call", async () => {
    server.reply(recorded("Chats_Tests_sendMessage_Send_message_stream_with_error"));
    const offline = new ScriptedModel(["offline answer"], { name: "offline-playbook", offline: true });
    const diverted: unknown[] = [];
    const model = withFallback(withRetry(developer("custom-gemini-2.0-flash"), noWait), offline, {
      onFallback: (reason) => diverted.push(reason.error),
    });
    const response = await model.generate(ask("why is the sky blue?"));

    assert.equal(response.text, "offline answer");
    assert.equal(server.requests.length, 1);
    const [error] = diverted;
    assert.ok(error instanceof ProviderUnavailableError);
    assert.equal(error.final, "model_not_found");
    assert.match(error.message, /custom-gemini-2\.0-flash is not found for API version v1beta/);
  });

  it("a per-minute 429 waits the RetryInfo delay (26 s) and then succeeds", async () => {
    server.reply(quoted("gemini-api-429-per-minute.json", 429), recorded(MCP_AFC, 1));
    const slept: number[] = [];
    const model = withRetry(developer("gemini-2.5-flash"), {
      sleep: async (ms) => {
        slept.push(ms);
      },
      random: () => 0,
      maxRetryAfterMs: 60_000,
    });
    assert.equal((await model.generate(ask("hi"))).text, "hello \nbeep");
    assert.deepEqual(slept, [26_000]);
  });

  it("a daily-quota 429 is not retried even though it carries a RetryInfo, and diverts to the fallback", async () => {
    server.reply(quoted("gemini-api-429-daily.json", 429));
    const offline = new ScriptedModel(["offline answer"], { name: "offline-playbook", offline: true });
    const slept: number[] = [];
    const gemini = withRetry(developer("gemini-2.0-flash"), {
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
    let reason: unknown;
    const model = withFallback(gemini, offline, { onFallback: (r) => (reason = r.error) });
    assert.equal((await model.generate(ask("hi"))).text, "offline answer");
    assert.deepEqual(slept, []);
    assert.equal(server.requests.length, 1);
    assert.ok(reason instanceof ProviderUnavailableError);
    assert.equal(reason.final, "daily_quota");
    assert.match(reason.message, /GenerateRequestsPerDayPerProjectPerModel-FreeTier/);
  });

  it("Vertex's array-wrapped 429 is a retryable unavailability with backoff", async () => {
    server.reply(
      quoted("vertex-429-resource-exhausted.json", 429),
      recorded(
        "Client_Tests_Vertex_AI_can_use_JSON_schema_in_parametersJsonSchema_to_build_FunctionDeclaration",
      ),
    );
    const slept: number[] = [];
    const model = withRetry(vertex("gemini-2.5-flash"), {
      sleep: async (ms) => {
        slept.push(ms);
      },
      random: () => 0.5,
      baseDelayMs: 1_000,
    });
    const response = await model.generate(ask("put word: hello and word: world into a string"));
    assert.equal(response.toolCalls[0]!.name, "concatStringFunction");
    // No RetryInfo: shared quota, whose backoff starts from a 2 s cap (issue 36.3).
    assert.deepEqual(slept, [1_000]);
    const first = server.requests.length;
    assert.equal(first, 2);
  });

  it("classifies the Vertex 429 body on its own as RESOURCE_EXHAUSTED without a retry delay", async () => {
    server.reply(quoted("vertex-429-resource-exhausted.json", 429));
    await assert.rejects(vertex("gemini-2.5-flash").generate(ask("x")), (error) => {
      assert.ok(error instanceof ModelUnavailableError);
      assert.ok(error instanceof ProviderUnavailableError);
      assert.equal(error.retryAfterMs, undefined);
      assert.equal(error.final, undefined);
      assert.match(error.message, /429 RESOURCE_EXHAUSTED: Resource exhausted/);
      return true;
    });
  });
});

describe("replay: Gemini's refusals of requests ferret built", () => {
  it("the recorded missing-signature 400 is ferret's bug: one request, then the offline model", async () => {
    server.reply(quoted("gemini-api-400-missing-thought-signature.json", 400));
    const offline = new ScriptedModel(["offline answer"], { name: "offline-playbook", offline: true });
    let reason: unknown;
    const model = withFallback(withRetry(developer("gemini-3.5-flash"), noWait), offline, {
      onFallback: (r) => (reason = r.error),
    });
    assert.equal((await model.generate(ask("hi"))).text, "offline answer");
    assert.equal(server.requests.length, 1);
    assert.ok(reason instanceof RequestRejectedError);
    assert.match(
      reason.providerMessage,
      /^Function call is missing a thought_signature in functionCall parts\./,
    );
  });

  it("so is the recorded Vertex thinking-level 400 (array-wrapped)", async () => {
    server.reply(quoted("vertex-400-thinking-level-medium.json", 400));
    await assert.rejects(vertex("gemini-3.5-flash").generate(ask("hi")), (error) => {
      assert.ok(error instanceof RequestRejectedError);
      assert.match(error.providerMessage, /thinking_level MEDIUM is not supported by this model/);
      return true;
    });
  });

  it("ferret moves a role's level to one the model takes, so Gemini 3 Pro is not refused", async () => {
    // The executor role thinks at MEDIUM; gemini-3-pro-preview takes only LOW and HIGH.
    server.reply(textAnswer("ok"));
    const response = await vertex("gemini-3-pro-preview").generate(ask("hi"));
    assert.equal(response.text, "ok");
    assert.equal(server.requests[0]!.refusedBy, undefined);
    assert.deepEqual(
      (server.requests[0]!.body as { generationConfig: { thinkingConfig: unknown } }).generationConfig
        .thinkingConfig,
      { thinkingLevel: "HIGH" },
    );
  });
});

describe("replay: embeddings", () => {
  it("reads a recorded Vertex :predict embedding (768 values) and normalizes it", async () => {
    server.reply(
      recorded("Client_Tests_embedContent_Vertex_AI_should_embed_content_with_specified_parameters"),
    );
    const model = new GeminiModel({
      vertexai: true,
      apiKey: "k",
      baseUrl,
      embeddingModel: "text-embedding-004",
    });
    const [vector] = await model.embed({ texts: ["Hello world"], task: "RETRIEVAL_DOCUMENT" });
    assert.equal(vector?.length, 768);
    assert.ok(Math.abs(Math.hypot(...(vector ?? [])) - 1) < 1e-9);
    assert.equal(server.requests[0]!.path, "/v1beta1/publishers/google/models/text-embedding-004:predict");
  });
});

/** A recorded stream (streamGenerateContent?alt=sse), served as the SSE body it was. */
function recordedStream(name: string, index: number): FakeReply {
  const { response } = recording(name).interactions[index]!;
  return {
    status: response.statusCode,
    contentType: "text/event-stream",
    raw: response.bodySegments.map((segment) => `data: ${JSON.stringify(segment)}\r\n\r\n`).join(""),
  };
}

const GEMINI3_PRO_CHAT =
  "Chats_Tests_chats_function_calling_Vertex_AI_with_streaming_function_calling_arguments_stream";
const GEMINI3_PRO_MCP =
  "MCP_related_client_Tests_generateContentStream_with_streamFunctionCallingArguments_enabled_Vertex_AI_should_stream_arguments_when_afc_is_disabled_explicitly";

describe("replay: Gemini 3 Pro (Vertex AI) through the SDK against the strict fake", () => {
  const sdk = () => new GoogleGenAI({ vertexai: true, apiKey: "k", httpOptions: { baseUrl } });
  type RecordedBody = { contents: Content[]; tools: unknown; toolConfig: unknown };
  const requestOf = (name: string, index: number) =>
    recording(name).interactions[index]!.request.bodySegments[0] as RecordedBody;
  const streamed = async (body: RecordedBody) => {
    const chunks: GenerateContentResponse[] = [];
    const stream = await sdk().models.generateContentStream({
      model: "gemini-3-pro-preview",
      contents: body.contents,
      config: { tools: body.tools, toolConfig: body.toolConfig } as never,
    });
    for await (const chunk of stream) chunks.push(chunk);
    return chunks;
  };

  it("every recorded Gemini 3 function-call answer signs its first call, and reports thinking tokens", async () => {
    for (const name of [GEMINI3_PRO_CHAT, GEMINI3_PRO_MCP]) {
      server.reply(recordedStream(name, 0));
      const chunks = await streamed(requestOf(name, 0));
      const calls = chunks
        .flatMap((c) => c.candidates?.[0]?.content?.parts ?? [])
        .filter((p) => p.functionCall);
      assert.ok(calls[0]?.thoughtSignature, `${name}: the first function-call part carries a signature`);
      const usage = usageOf(chunks.at(-1)!);
      assert.ok((usage.thinkingTokens ?? 0) > 0, `${name}: Gemini 3 Pro thought before calling`);
      assert.equal(
        usage.outputTokens,
        (chunks.at(-1)!.usageMetadata?.candidatesTokenCount ?? 0) + (usage.thinkingTokens ?? 0),
      );
    }
  });

  it("takes the SDK's recorded echo of the signed call, and refuses the same history unsigned as Vertex does", async () => {
    server.reply(recordedStream(GEMINI3_PRO_CHAT, 0), recordedStream(GEMINI3_PRO_CHAT, 1));
    await streamed(requestOf(GEMINI3_PRO_CHAT, 0));
    const echoed = requestOf(GEMINI3_PRO_CHAT, 1);
    const answer = await streamed(echoed);
    assert.equal(answer.map((c) => c.text ?? "").join(""), "The result of 100/2 is 51.");
    assert.equal(server.requests[1]!.refusedBy, undefined);

    const unsigned = structuredClone(echoed);
    for (const part of unsigned.contents[1]!.parts ?? []) delete part.thoughtSignature;
    await assert.rejects(streamed(unsigned), (error) => {
      const classified = classifyProviderError(error);
      assert.ok(classified instanceof RequestRejectedError, "ferret's bug, diverted to the offline model");
      assert.match(
        classified.providerMessage,
        /^Unable to submit request because function call `default_api:customDivide` in the 2\. content block is missing a `thought_signature`/,
      );
      return true;
    });
    assert.equal(server.requests[2]!.refusedBy, "thought-signature-current-turn");
  });
});

describe("replay: the SDK's automatic continuation, and ferret's", () => {
  const continued = (): FakeReply[] => [
    {
      json: {
        candidates: [
          {
            content: { role: "model", parts: [{ text: "first half, " }] },
            finishReason: "CONTINUATION",
            continuationToken: "aG9wLTE=",
          },
        ],
        usageMetadata: { promptTokenCount: 500, candidatesTokenCount: 20, totalTokenCount: 520 },
      },
    },
    {
      json: {
        candidates: [{ content: { role: "model", parts: [{ text: "second half" }] }, finishReason: "STOP" }],
        usageMetadata: { promptTokenCount: 500, candidatesTokenCount: 10, totalTokenCount: 510 },
      },
    },
  ];

  it("@google/genai 3.1.0 continues on its own by default and sums every token count, the prompt included", async () => {
    server.reply(...continued());
    const raw = await new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl } }).models.generateContent({
      model: "gemini-3.5-flash",
      contents: "hi",
    });
    assert.equal(server.requests.length, 2, "one generateContent call, two HTTP requests");
    assert.equal(raw.usageMetadata?.promptTokenCount, 1_000, "the 500-token prompt counted twice");
    assert.equal(raw.candidates?.[0]?.finishReason, "STOP");
  });

  it("ferret turns it off and continues itself: two counted requests, the prompt once as context", async () => {
    server.reply(...continued());
    const response = await developer("gemini-3.5-flash").generate(ask("hi"));
    assert.equal(server.requests.length, 2);
    assert.equal(response.text, "first half, second half");
    assert.equal(response.usage.llmCalls, 2);
    assert.equal(response.promptTokens, 500);
  });
});

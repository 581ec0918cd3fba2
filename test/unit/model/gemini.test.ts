import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import {
  ConfigError,
  ModelOutputError,
  ModelUnavailableError,
  TokenLimitError,
} from "../../../functions/src/domain/errors.js";
import { ModelGlitchError, ProviderUnavailableError } from "../../../functions/src/model/errors.js";
import { GeminiModel } from "../../../functions/src/model/gemini.js";
import { INJECTED_CALL_SIGNATURE, THINKING_ROOM } from "../../../functions/src/model/gemini-mapping.js";
import { MessageSchema } from "../../../functions/src/model/message-schema.js";
import type { GenerateRequest } from "../../../functions/src/model/port.js";
import { nudgeText, withRetry } from "../../../functions/src/model/retry.js";
import { someBrief } from "../../helpers/briefs.js";
import { FakeGemini, geminiAnswer } from "../../helpers/fake-gemini.js";

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
  assert.equal(server.pending, 0, "the previous test consumed all scripted replies");
});

const gemini = (extra: ConstructorParameters<typeof GeminiModel>[0] = {}) =>
  new GeminiModel({ apiKey: "test-key", baseUrl, ...extra });

const simple: GenerateRequest = {
  brief: someBrief("planner"),
  system: "You plan.",
  messages: [{ role: "user", text: "Plan finding f-1." }],
};

describe("GeminiModel.generate: what goes on the wire", () => {
  it("sends system instruction, contents with function call/response parts, tools, schema and config", async () => {
    server.reply(geminiAnswer([{ text: "done" }]));
    const request: GenerateRequest = {
      brief: someBrief("executor"),
      system: "You execute one step.",
      messages: [
        { role: "user", text: "Step s1: who granted the role?" },
        {
          role: "model",
          text: "Querying the audit log.",
          toolCalls: [{ id: "call-from-gemini", name: "query_logs", args: { table: "activity", hours: 2 } }],
        },
        {
          role: "tool",
          responses: [
            { id: "call-from-gemini", name: "query_logs", response: { rows: [{ principal: "a@b.c" }] } },
          ],
        },
        { role: "model", text: "" },
      ],
      tools: [
        {
          name: "query_logs",
          description: "Runs a read-only query over audit logs.",
          parameters: {
            $schema: "https://json-schema.org/draft/2020-12/schema",
            type: "object",
            properties: {
              table: { type: "string", const: "activity" },
              hours: { type: "integer", minimum: 1 },
            },
            required: ["table"],
          },
        },
      ],
      responseSchema: {
        type: "object",
        properties: { outcome: { type: "string", enum: ["answered", "no_data"] } },
      },
      temperature: 0.3,
      maxOutputTokens: 2048,
      investigationId: "inv-1",
    };
    await gemini().generate(request);

    assert.equal(server.requests.length, 1);
    const sent = server.requests[0]!;
    assert.equal(sent.method, "POST");
    // The executor is a "lite" role by default.
    assert.equal(sent.path, "/v1beta/models/gemini-3.1-flash-lite:generateContent");
    assert.equal(sent.headers["x-goog-api-key"], "test-key");
    assert.deepEqual(sent.body, {
      contents: [
        { role: "user", parts: [{ text: "Step s1: who granted the role?" }] },
        {
          role: "model",
          parts: [
            { text: "Querying the audit log." },
            {
              functionCall: {
                id: "call-from-gemini",
                name: "query_logs",
                args: { table: "activity", hours: 2 },
              },
              // A model turn with no signature of its own (ferret wrote it) carries the documented dummy.
              thoughtSignature: INJECTED_CALL_SIGNATURE,
            },
          ],
        },
        {
          role: "user",
          parts: [
            {
              functionResponse: {
                id: "call-from-gemini",
                name: "query_logs",
                response: { rows: [{ principal: "a@b.c" }] },
              },
            },
          ],
        },
      ],
      systemInstruction: { parts: [{ text: "You execute one step." }] },
      tools: [
        {
          functionDeclarations: [
            {
              name: "query_logs",
              description: "Runs a read-only query over audit logs.",
              parametersJsonSchema: {
                type: "object",
                properties: {
                  table: { type: "string", enum: ["activity"] },
                  hours: { type: "integer", minimum: 1 },
                },
                required: ["table"],
              },
            },
          ],
        },
      ],
      // Gemini 3 keeps its default temperature; the role's thinking level goes out instead, and
      // the cap is the answer's 2048 plus the room MEDIUM thinking gets.
      generationConfig: {
        maxOutputTokens: 2048 + THINKING_ROOM.medium,
        thinkingConfig: { thinkingLevel: "MEDIUM" },
        responseMimeType: "application/json",
        responseJsonSchema: {
          type: "object",
          properties: { outcome: { type: "string", enum: ["answered", "no_data"] } },
        },
      },
    });
  });

  it("gives a 2.5 model its temperature, a thinking budget and the role's output cap, and no labels on the Developer API", async () => {
    server.reply(geminiAnswer([{ text: "ok" }]));
    await gemini({ model: "gemini-2.5-pro", temperature: 0.1 }).generate({
      ...simple,
      investigationId: "inv-9",
    });
    const sent = server.requests[0]!;
    assert.equal(sent.path, "/v1beta/models/gemini-2.5-pro:generateContent");
    assert.deepEqual(sent.body, {
      contents: [{ role: "user", parts: [{ text: "Plan finding f-1." }] }],
      systemInstruction: { parts: [{ text: "You plan." }] },
      // The 4096-token thinking budget counts against maxOutputTokens on 2.5, so the cap adds it.
      generationConfig: {
        temperature: 0.1,
        maxOutputTokens: 8192 + 4096,
        thinkingConfig: { thinkingBudget: 4096 },
      },
    });
  });
});

describe("GeminiModel.generate: what comes back", () => {
  it("maps text (without thoughts), tool calls with ids, usage with thinking tokens, finish reason", async () => {
    server.reply(
      geminiAnswer(
        [
          { text: "thinking about IAM…", thought: true },
          { text: "I will query " },
          { text: "the logs." },
          {
            functionCall: { id: "fc-1", name: "query_logs", args: { table: "activity" } },
            thoughtSignature: "c2lnLTE=",
          },
          { functionCall: { name: "lookup_ioc", args: { value: "203.0.113.7" } } },
        ],
        {
          usageMetadata: {
            promptTokenCount: 1_000,
            candidatesTokenCount: 50,
            thoughtsTokenCount: 200,
            toolUsePromptTokenCount: 7,
            totalTokenCount: 1_257,
          },
        },
      ),
    );
    const response = await gemini().generate(simple);

    assert.equal(response.text, "I will query the logs.");
    assert.equal(response.model, "gemini-3.8-flash");
    assert.equal(response.finishReason, "STOP");
    assert.deepEqual(response.usage, {
      llmCalls: 1,
      inputTokens: 1_007,
      outputTokens: 250,
      cachedInputTokens: 0,
      thinkingTokens: 200,
    });
    assert.equal(response.toolCalls.length, 2);
    assert.deepEqual(response.toolCalls[0], {
      id: "fc-1",
      name: "query_logs",
      args: { table: "activity" },
      signature: "c2lnLTE=",
    });
    assert.equal(response.toolCalls[1]!.name, "lookup_ioc");
    assert.deepEqual(response.toolCalls[1]!.args, { value: "203.0.113.7" });
    assert.match(response.toolCalls[1]!.id, /^ferret-call-[0-9a-f-]{36}$/);
  });

  it("echoes thought signatures on the next turn and keeps invented ids to itself", async () => {
    server.reply(
      geminiAnswer([
        { functionCall: { id: "fc-1", name: "query_logs", args: {} }, thoughtSignature: "c2lnLTE=" },
        { functionCall: { name: "lookup_ioc", args: { value: "x" } } },
      ]),
      geminiAnswer([{ text: "{}" }]),
    );
    const model = gemini();
    const first = await model.generate(simple);
    const [a, b] = first.toolCalls;
    await model.generate({
      ...simple,
      messages: [
        ...simple.messages,
        { role: "model", toolCalls: first.toolCalls },
        {
          role: "tool",
          responses: [
            { id: a!.id, name: a!.name, response: { rows: 0 } },
            { id: b!.id, name: b!.name, response: { known: false } },
          ],
        },
      ],
    });
    const contents = (server.requests[1]!.body as { contents: unknown[] }).contents;
    assert.deepEqual(contents.slice(1), [
      {
        role: "model",
        parts: [
          { functionCall: { id: "fc-1", name: "query_logs", args: {} }, thoughtSignature: "c2lnLTE=" },
          { functionCall: { name: "lookup_ioc", args: { value: "x" } } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { id: "fc-1", name: "query_logs", response: { rows: 0 } } },
          { functionResponse: { name: "lookup_ioc", response: { known: false } } },
        ],
      },
    ]);
  });

  it("echoes a signature from a history stored and read back by another instance (a resumed step)", async () => {
    server.reply(
      geminiAnswer([
        { functionCall: { id: "fc-9", name: "query_logs", args: {} }, thoughtSignature: "c2lnLTk=" },
      ]),
      geminiAnswer([{ text: "{}" }]),
    );
    const first = await gemini().generate(simple);
    // What the step journal saves and a new process reads back.
    const stored = JSON.parse(
      JSON.stringify([...simple.messages, { role: "model", toolCalls: first.toolCalls }]),
    ) as unknown[];
    const resumed = stored.map((m) => MessageSchema.parse(m));
    await gemini().generate({
      ...simple,
      messages: [...resumed, { role: "tool", responses: [{ id: "fc-9", name: "query_logs", response: {} }] }],
    });
    const contents = (server.requests[1]!.body as { contents: unknown[] }).contents;
    assert.deepEqual(contents[1], {
      role: "model",
      parts: [{ functionCall: { id: "fc-9", name: "query_logs", args: {} }, thoughtSignature: "c2lnLTk=" }],
    });
  });

  it("turns a blocked prompt, a safety stop and an empty answer into ModelOutputError", async () => {
    server.reply(
      {
        json: {
          promptFeedback: { blockReason: "PROHIBITED_CONTENT" },
          usageMetadata: { promptTokenCount: 10 },
        },
      },
      { json: { candidates: [{ content: { role: "model", parts: [] }, finishReason: "SAFETY" }] } },
      {
        json: {
          candidates: [{ content: { role: "model" }, finishReason: "MAX_TOKENS" }],
          usageMetadata: { promptTokenCount: 10, thoughtsTokenCount: 100 },
        },
      },
    );
    const model = gemini();
    await assert.rejects(model.generate(simple), (error: unknown) => {
      assert.ok(error instanceof ModelOutputError);
      assert.equal(
        error.message,
        "gemini-3.8-flash returned no candidate: prompt blocked (PROHIBITED_CONTENT)",
      );
      return true;
    });
    await assert.rejects(model.generate(simple), (error: unknown) => {
      assert.ok(error instanceof ModelOutputError);
      assert.equal(error.details?.finishReason, "SAFETY");
      return true;
    });
    await assert.rejects(model.generate(simple), (error: unknown) => {
      assert.ok(error instanceof ModelOutputError);
      assert.match(error.message, /output token limit \(MAX_TOKENS\)/);
      assert.deepEqual(error.details?.usage, {
        llmCalls: 1,
        inputTokens: 10,
        outputTokens: 100,
        cachedInputTokens: 0,
        thinkingTokens: 100,
      });
      return true;
    });
  });
});

const tooLong = {
  status: 400,
  json: {
    error: {
      code: 400,
      message: "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
      status: "INVALID_ARGUMENT",
    },
  },
};
const quota = {
  status: 429,
  json: {
    error: {
      code: 429,
      message: "You exceeded your current quota, please check your plan and billing details.",
      status: "RESOURCE_EXHAUSTED",
      details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "2s" }],
    },
  },
};

describe("GeminiModel errors through the SDK", () => {
  it("makes one HTTP attempt per call: the SDK does not retry on its own", async () => {
    server.reply(quota);
    await assert.rejects(gemini().generate(simple), ProviderUnavailableError);
    assert.equal(server.requests.length, 1);
  });

  it("429 is retried by withRetry with backoff, then surfaces as ModelUnavailableError", async () => {
    server.reply(quota, quota, quota);
    const slept: number[] = [];
    const model = withRetry(gemini(), {
      maxAttempts: 3,
      baseDelayMs: 1_000,
      maxDelayMs: 10_000,
      random: () => 0.5,
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
    await assert.rejects(model.generate(simple), (error: unknown) => {
      assert.ok(error instanceof ModelUnavailableError);
      assert.ok(error instanceof ProviderUnavailableError);
      assert.equal(error.httpStatus, 429);
      assert.equal(error.retryAfterMs, 2_000);
      return true;
    });
    assert.equal(server.requests.length, 3);
    // jittered 500 and 1000, each raised to the provider's 2 s RetryInfo
    assert.deepEqual(slept, [2_000, 2_000]);
  });

  it("503 then success is served on the second attempt", async () => {
    server.reply(
      {
        status: 503,
        json: { error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } },
      },
      geminiAnswer([{ text: "recovered" }]),
    );
    const response = await withRetry(gemini(), { sleep: async () => {} }).generate(simple);
    assert.equal(response.text, "recovered");
    assert.equal(server.requests.length, 2);
    assert.deepEqual(server.requests[0]!.body, server.requests[1]!.body);
  });

  it("a 400 token-count error becomes TokenLimitError with the numbers and is not retried", async () => {
    server.reply(tooLong);
    await assert.rejects(
      withRetry(gemini(), { sleep: async () => {} }).generate(simple),
      (error: unknown) => {
        assert.ok(error instanceof TokenLimitError);
        assert.equal(error.inputTokens, 1_200_293);
        assert.equal(error.maxTokens, 1_048_576);
        return true;
      },
    );
    assert.equal(server.requests.length, 1);
  });

  it("a retired or unknown model is unavailable without retries, so the offline fallback takes over", async () => {
    server.reply({
      status: 404,
      json: {
        error: {
          code: 404,
          message: "models/gemini-0 is not found for API version v1beta",
          status: "NOT_FOUND",
        },
      },
    });
    await assert.rejects(
      withRetry(gemini({ model: "gemini-0" }), { sleep: async () => {} }).generate(simple),
      (error) => {
        assert.ok(error instanceof ProviderUnavailableError);
        assert.equal(error.final, "model_not_found");
        assert.equal(error.retryable, false);
        assert.match(error.message, /gemini-0 is not found.*retired or unknown; set FERRET_GEMINI_MODEL/);
        return true;
      },
    );
    assert.equal(server.requests.length, 1);
  });

  it("a timeout is ModelUnavailableError", async () => {
    server.reply({ ...geminiAnswer([{ text: "late" }]), delayMs: 2_000 });
    await assert.rejects(gemini({ timeoutMs: 100 }).generate(simple), (error: unknown) => {
      assert.ok(error instanceof ModelUnavailableError);
      assert.match(error.message, /timed out/);
      return true;
    });
  });

  it("a refused connection is ModelUnavailableError", async () => {
    const closed = new FakeGemini();
    const url = await closed.start();
    await closed.stop();
    await assert.rejects(
      new GeminiModel({ apiKey: "k", baseUrl: url }).generate(simple),
      (error: unknown) => {
        assert.ok(error instanceof ModelUnavailableError);
        assert.match(error.message, /^Gemini unreachable: /);
        return true;
      },
    );
  });
});

describe("GeminiModel: per-role models, thinking by model family, glitches", () => {
  it("sends thinkingLevel to Gemini 3, thinkingBudget to 2.5 and nothing to 2.0", async () => {
    server.reply(geminiAnswer([{ text: "a" }]), geminiAnswer([{ text: "b" }]), geminiAnswer([{ text: "c" }]));
    const roles = {
      planner: { model: "main", thinkingLevel: "high" as const, thinkingBudget: 512, maxOutputTokens: 1000 },
    };
    for (const model of ["gemini-3.8-flash", "gemini-2.5-flash", "gemini-2.0-flash"]) {
      await gemini({ model, roles }).generate(simple);
    }
    assert.deepEqual(
      server.requests.map((r) => (r.body as { generationConfig: unknown }).generationConfig),
      [
        { maxOutputTokens: 1000 + THINKING_ROOM.high, thinkingConfig: { thinkingLevel: "HIGH" } },
        { maxOutputTokens: 1000 + 512, thinkingConfig: { thinkingBudget: 512 } },
        { maxOutputTokens: 1000 },
      ],
    );
  });

  it("routes each role to its model: lite roles to the lite model, explicit ids as given", async () => {
    server.reply(geminiAnswer([{ text: "a" }]), geminiAnswer([{ text: "b" }]), geminiAnswer([{ text: "c" }]));
    const model = gemini({
      model: "gemini-3.8-flash",
      liteModel: "gemini-3.1-flash-lite",
      roles: {
        concluder: {
          model: "gemini-3.5-pro",
          thinkingLevel: "high",
          thinkingBudget: 0,
          maxOutputTokens: 900,
        },
      },
    });
    await model.generate({ ...simple, brief: someBrief("planner") });
    await model.generate({ ...simple, brief: someBrief("compressor") });
    const concluded = await model.generate({ ...simple, brief: someBrief("concluder") });
    assert.deepEqual(
      server.requests.map((r) => r.path),
      [
        "/v1beta/models/gemini-3.8-flash:generateContent",
        "/v1beta/models/gemini-3.1-flash-lite:generateContent",
        "/v1beta/models/gemini-3.5-pro:generateContent",
      ],
    );
    assert.equal(concluded.model, "gemini-3.5-pro");
    assert.deepEqual(model.modelIds().sort(), [
      "gemini-3.1-flash-lite",
      "gemini-3.5-pro",
      "gemini-3.8-flash",
    ]);
  });

  it("retries a MALFORMED_FUNCTION_CALL once with a nudge that joins the last user turn", async () => {
    server.reply(
      {
        json: {
          candidates: [{ content: { role: "model", parts: [] }, finishReason: "MALFORMED_FUNCTION_CALL" }],
          usageMetadata: { promptTokenCount: 300, thoughtsTokenCount: 20 },
        },
      },
      geminiAnswer([{ functionCall: { name: "query_logs", args: { table: "activity" } } }]),
    );
    const request: GenerateRequest = {
      ...simple,
      brief: someBrief("executor"),
      messages: [
        { role: "user", text: "Step s1." },
        { role: "model", toolCalls: [{ id: "c1", name: "query_logs", args: {} }] },
        { role: "tool", responses: [{ id: "c1", name: "query_logs", response: { rows: 0 } }] },
      ],
    };
    const response = await withRetry(gemini(), { sleep: async () => {} }).generate(request);

    assert.equal(response.toolCalls[0]!.name, "query_logs");
    assert.equal(response.usage.llmCalls, 2);
    assert.equal(response.usage.inputTokens, 300 + 120);
    const retried = (server.requests[1]!.body as { contents: Array<{ role: string; parts: unknown[] }> })
      .contents;
    assert.equal(retried.length, 3, "the nudge joins the tool-result turn instead of opening a new one");
    assert.equal(retried[2]!.role, "user");
    assert.deepEqual(retried[2]!.parts.at(-1), {
      text: nudgeText(new ModelGlitchError("", "malformed_function_call", {})),
    });
  });

  it("classifies OTHER as a glitch and SAFETY as final", async () => {
    server.reply(
      { json: { candidates: [{ content: { role: "model", parts: [] }, finishReason: "OTHER" }] } },
      { json: { candidates: [{ content: { role: "model", parts: [] }, finishReason: "SAFETY" }] } },
    );
    await assert.rejects(
      gemini().generate(simple),
      (e) => e instanceof ModelGlitchError && e.glitch === "other",
    );
    await assert.rejects(
      gemini().generate(simple),
      (e) => e instanceof ModelOutputError && !(e instanceof ModelGlitchError),
    );
  });

  it("asks the provider whether each configured model exists", async () => {
    server.reply(
      { json: { name: "models/gemini-3.8-flash" } },
      {
        status: 404,
        json: {
          error: { code: 404, message: "models/gemini-3.1-flash-lite is not found", status: "NOT_FOUND" },
        },
      },
      { json: { name: "models/gemini-embedding-001" } },
    );
    const checks = await gemini().checkModels();
    assert.deepEqual(
      checks.map((c) => [c.model, c.ok]),
      [
        ["gemini-3.8-flash", true],
        ["gemini-3.1-flash-lite", false],
        ["gemini-embedding-001", true],
      ],
    );
    assert.match(checks[1]!.error ?? "", /retired or unknown/);
  });
});

describe("GeminiModel.embed", () => {
  it("batches texts, asks for 768 dimensions and the task type, and normalizes the vectors", async () => {
    const vec = (x: number) => Array.from({ length: 768 }, (_, i) => (i === 0 ? x : 0));
    server.reply(
      { json: { embeddings: [{ values: vec(2) }, { values: vec(-3) }] } },
      { json: { embeddings: [{ values: vec(0.5) }] } },
    );
    const vectors = await gemini({ embedBatchSize: 2 }).embed({
      texts: ["claim one", "claim two", "claim three"],
      task: "RETRIEVAL_DOCUMENT",
    });

    assert.deepEqual(
      vectors.map((v) => v[0]),
      [1, -1, 1],
    );
    assert.ok(vectors.every((v) => v.length === 768));
    assert.deepEqual(
      server.requests.map((r) => r.path),
      [
        "/v1beta/models/gemini-embedding-001:batchEmbedContents",
        "/v1beta/models/gemini-embedding-001:batchEmbedContents",
      ],
    );
    const item = (text: string) => ({
      content: { role: "user", parts: [{ text }] },
      taskType: "RETRIEVAL_DOCUMENT",
      outputDimensionality: 768,
      model: "models/gemini-embedding-001",
    });
    assert.deepEqual(server.requests[0]!.body, { requests: [item("claim one"), item("claim two")] });
    assert.deepEqual(server.requests[1]!.body, { requests: [item("claim three")] });
  });

  it("sends gemini-embedding-2 one content per text on the Developer API (not one content of N parts)", async () => {
    const vec = (x: number) => Array.from({ length: 768 }, (_, i) => (i === 1 ? x : 0));
    server.reply({ json: { embeddings: [{ values: vec(1) }, { values: vec(2) }] } });
    const vectors = await gemini({ embeddingModel: "gemini-embedding-2" }).embed({
      texts: ["first claim", "second claim"],
      task: "RETRIEVAL_DOCUMENT",
    });
    assert.equal(vectors.length, 2);
    const body = server.requests[0]!.body as { requests: Array<{ content: { parts: unknown[] } }> };
    assert.equal(server.requests[0]!.path, "/v1beta/models/gemini-embedding-2:batchEmbedContents");
    assert.deepEqual(
      body.requests.map((r) => r.content.parts),
      [[{ text: "first claim" }], [{ text: "second claim" }]],
    );
  });

  it("sends gemini-embedding-2 one text per :embedContent request on Vertex", async () => {
    const vec = (x: number) => Array.from({ length: 768 }, (_, i) => (i === 2 ? x : 0));
    server.reply({ json: { embedding: { values: vec(3) } } }, { json: { embedding: { values: vec(4) } } });
    const model = new GeminiModel({
      vertexai: true,
      apiKey: "k",
      baseUrl,
      embeddingModel: "gemini-embedding-2",
    });
    const vectors = await model.embed({ texts: ["a", "b"], task: "RETRIEVAL_QUERY" });
    assert.deepEqual(
      vectors.map((v) => v[2]),
      [1, 1],
    );
    assert.deepEqual(
      server.requests.map((r) => r.path),
      [
        "/v1beta1/publishers/google/models/gemini-embedding-2:embedContent",
        "/v1beta1/publishers/google/models/gemini-embedding-2:embedContent",
      ],
    );
  });

  it("rejects vectors of the wrong size", async () => {
    server.reply({ json: { embeddings: [{ values: [1, 2, 3] }] } });
    await assert.rejects(gemini().embed({ texts: ["x"], task: "RETRIEVAL_QUERY" }), ModelOutputError);
  });

  it("sends nothing for no texts", async () => {
    assert.deepEqual(await gemini().embed({ texts: [], task: "RETRIEVAL_QUERY" }), []);
    assert.equal(server.requests.length, 0);
  });
});

describe("GeminiModel on Vertex AI (express mode against the fake)", () => {
  const vertex = () => new GeminiModel({ vertexai: true, apiKey: "vertex-key", baseUrl });

  it("uses the Vertex path, labels the request by role (never by investigation), and embeds gemini-embedding-001 one text per call", async () => {
    server.reply(
      geminiAnswer([{ text: "ok" }]),
      { json: { predictions: [{ embeddings: { values: [3, 4] } }] } },
      {
        json: { predictions: [{ embeddings: { values: [0, 2] } }] },
      },
    );
    const model = vertex();
    await model.generate({ ...simple, investigationId: "Inv/ABC-1" });
    const vectors = await model.embed({ texts: ["a", "b"], task: "SEMANTIC_SIMILARITY", dimensions: 2 });

    assert.equal(
      server.requests[0]!.path,
      "/v1beta1/publishers/google/models/gemini-3.8-flash:generateContent",
    );
    assert.deepEqual(server.requests[0]!.body, {
      contents: [{ role: "user", parts: [{ text: "Plan finding f-1." }] }],
      systemInstruction: { parts: [{ text: "You plan." }] },
      labels: { app: "ferret", role: "planner" },
      generationConfig: {
        maxOutputTokens: 8192 + THINKING_ROOM.medium,
        thinkingConfig: { thinkingLevel: "MEDIUM" },
      },
    });
    assert.deepEqual(
      server.requests.slice(1).map((r) => [r.path, r.body]),
      [
        [
          "/v1beta1/publishers/google/models/gemini-embedding-001:predict",
          {
            instances: [{ content: "a", task_type: "SEMANTIC_SIMILARITY" }],
            parameters: { outputDimensionality: 2 },
          },
        ],
        [
          "/v1beta1/publishers/google/models/gemini-embedding-001:predict",
          {
            instances: [{ content: "b", task_type: "SEMANTIC_SIMILARITY" }],
            parameters: { outputDimensionality: 2 },
          },
        ],
      ],
    );
    assert.deepEqual(vectors, [
      [0.6, 0.8],
      [0, 1],
    ]);
  });

  it("classifies Vertex's own token-limit message", async () => {
    server.reply({
      status: 400,
      json: {
        error: {
          code: 400,
          message:
            "Unable to submit request because the input token count is 1251952 but model only supports up to 1048576. Reduce the input token count and try again.",
          status: "INVALID_ARGUMENT",
        },
      },
    });
    await assert.rejects(vertex().generate(simple), (error: unknown) => {
      assert.ok(error instanceof TokenLimitError);
      assert.deepEqual([error.inputTokens, error.maxTokens], [1_251_952, 1_048_576]);
      return true;
    });
  });
});

describe("GeminiModel configuration", () => {
  it("refuses to start without credentials or with invalid options", () => {
    assert.throws(() => new GeminiModel({}), ConfigError);
    assert.throws(() => new GeminiModel({ vertexai: true }), ConfigError);
    assert.throws(
      () => new GeminiModel({ apiKey: "k", temperature: 5 }),
      /invalid Gemini options: temperature/,
    );
    assert.equal(new GeminiModel({ apiKey: "k" }).offline, false);
  });
});

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { apiError, FakeGemini, geminiAnswer, textAnswer } from "../../helpers/fake-gemini.js";
import { RULES } from "../../helpers/gemini-rules.js";

/** The one fake Gemini server: what the adapter, fault and e2e tests rely on it to do. */
describe("the fake Gemini server", () => {
  const started: FakeGemini[] = [];
  after(async () => Promise.all(started.map((f) => f.stop())));
  const post = (url: string, path: string, body: unknown) =>
    fetch(`${url}${path}`, { method: "POST", body: JSON.stringify(body) });

  it("answers queued replies first, then asks respond, and records the role and status", async () => {
    const fake = await FakeGemini.start({ respond: (r) => apiError(503, "UNAVAILABLE", `busy ${r.role}`) });
    started.push(fake);
    fake.reply(textAnswer("queued"));
    const planner = {
      systemInstruction: { parts: [{ text: "You plan investigations for ferret" }] },
      contents: [],
    };
    const first = await post(fake.url, "/v1beta/models/m:generateContent", planner);
    assert.equal(first.status, 200);
    assert.match(await first.text(), /queued/);
    const second = await post(fake.url, "/v1beta/models/m:generateContent", planner);
    assert.equal(second.status, 503);
    assert.match(await second.text(), /busy planner/);
    assert.deepEqual(
      fake.requests.map((r) => [r.role, r.status]),
      [
        ["planner", 200],
        ["planner", 503],
      ],
    );
  });

  it("fails a request nothing answers with a 599", async () => {
    const fake = await FakeGemini.start();
    started.push(fake);
    const res = await post(fake.url, "/v1beta/models/m:generateContent", {});
    assert.equal(res.status, 599);
    assert.equal(fake.requests[0]?.role, "unknown");
  });

  it("answers embeddings only when asked to, one vector per text, unrecorded", async () => {
    const fake = await FakeGemini.start({ embeddings: true });
    started.push(fake);
    const res = await post(fake.url, "/v1beta/models/e:batchEmbedContents", { requests: [{}, {}] });
    const body = (await res.json()) as { embeddings: Array<{ values: number[] }> };
    assert.equal(body.embeddings.length, 2);
    assert.equal(body.embeddings[0]?.values.length, 768);
    assert.equal(fake.requests.length, 0);
    const plain = await FakeGemini.start();
    started.push(plain);
    assert.equal(
      (await post(plain.url, "/v1beta/models/e:batchEmbedContents", { requests: [{}] })).status,
      599,
    );
  });

  it("keeps a body that is not JSON as text", async () => {
    const fake = await FakeGemini.start({ respond: () => textAnswer("ok") });
    started.push(fake);
    await fetch(`${fake.url}/x`, { method: "POST", body: "not json" });
    assert.equal(fake.requests[0]?.text, "not json");
    assert.equal(fake.requests[0]?.body, undefined);
  });
});

/**
 * The Gemini rules the fake enforces (test/helpers/gemini-rules.ts), each refused as the API
 * refuses it: for the rules whose refusal somebody recorded, the body is the recorded one with
 * only the request's names and numbers in its message.
 */
describe("the fake Gemini server is as strict as Gemini", () => {
  const started: FakeGemini[] = [];
  after(async () => Promise.all(started.map((f) => f.stop())));
  const fresh = async (options: ConstructorParameters<typeof FakeGemini>[0] = {}) => {
    const fake = await FakeGemini.start(options);
    started.push(fake);
    return fake;
  };
  const ISSUES = join(import.meta.dirname, "../../fixtures/real/gemini/issues");
  const recorded = (file: string) => JSON.parse(readFileSync(join(ISSUES, file), "utf8")) as unknown;
  const developer = (model: string) => `/v1beta/models/${model}:generateContent`;
  const vertex = (model: string) => `/v1beta1/publishers/google/models/${model}:generateContent`;
  const generate = async (fake: FakeGemini, path: string, body: unknown) => {
    const res = await fetch(`${fake.url}${path}`, { method: "POST", body: JSON.stringify(body) });
    return {
      status: res.status,
      body: (await res.json()) as unknown,
      refusedBy: fake.requests.at(-1)?.refusedBy,
    };
  };
  const user = (text: string) => ({ role: "user", parts: [{ text }] });
  const calls = (...parts: unknown[]) => ({ role: "model", parts });
  const call = (name: string, signature?: string) => ({
    functionCall: { name, args: {} },
    ...(signature ? { thoughtSignature: signature } : {}),
  });
  const answers = (...names: string[]) => ({
    role: "user",
    parts: names.map((name) => ({ functionResponse: { name, response: {} } })),
  });

  it("Gemini 3: an unsigned first call in the current turn gets the recorded Developer API 400", async () => {
    const fake = await fresh({ respond: () => textAnswer("ok") });
    const out = await generate(fake, developer("gemini-3.5-flash"), {
      contents: [user("hi"), calls(call("query_logs")), answers("query_logs")],
    });
    assert.equal(out.status, 400);
    assert.equal(out.refusedBy, "thought-signature-current-turn");
    const expected = recorded("gemini-api-400-missing-thought-signature.json") as {
      error: { message: string };
    };
    expected.error.message = expected.error.message.replace(
      "`default_api:google_search` , position 8",
      "`default_api:query_logs` , position 2",
    );
    assert.deepEqual(out.body, expected);
  });

  it("Gemini 3 on Vertex: the recorded Vertex wording", async () => {
    const fake = await fresh({ respond: () => textAnswer("ok") });
    const out = await generate(fake, vertex("gemini-3.1-flash-lite"), {
      contents: [user("hi"), calls(call("query_logs")), answers("query_logs")],
    });
    assert.equal(out.status, 400);
    const expected = recorded("vertex-400-missing-thought-signature.json") as { error: { message: string } };
    expected.error.message = expected.error.message.replace(
      "`xxx` in the 5. content block",
      "`default_api:query_logs` in the 2. content block",
    );
    assert.deepEqual(out.body, expected);
  });

  it("takes both spellings of the documented dummy, a signature it issued, and later parallel calls unsigned", async () => {
    const fake = await fresh({ respond: () => textAnswer("ok") });
    fake.reply(geminiAnswer([call("query_logs"), call("lookup_ioc")]));
    const first = await generate(fake, developer("gemini-3.5-flash"), { contents: [user("hi")] });
    const parts = (
      first.body as { candidates: Array<{ content: { parts: Array<{ thoughtSignature?: string }> } }> }
    ).candidates[0]!.content.parts;
    assert.ok(
      parts[0]!.thoughtSignature,
      "a Gemini 3 answer with calls carries a signature on the first call",
    );
    assert.equal(parts[1]!.thoughtSignature, undefined, "and only on the first");
    for (const signature of [
      parts[0]!.thoughtSignature,
      "skip_thought_signature_validator",
      Buffer.from("skip_thought_signature_validator").toString("base64"),
      "context_engineering_is_the_way_to_go",
    ]) {
      const out = await generate(fake, developer("gemini-3.5-flash"), {
        contents: [
          user("hi"),
          calls(call("query_logs", signature), call("lookup_ioc")),
          answers("query_logs", "lookup_ioc"),
        ],
      });
      assert.equal(out.status, 200, `signature ${signature}`);
    }
  });

  it("refuses a signature it never issued (made up by the client)", async () => {
    const fake = await fresh({ respond: () => textAnswer("ok") });
    const out = await generate(fake, developer("gemini-3.5-flash"), {
      contents: [user("hi"), calls(call("query_logs", "bWFkZS11cA==")), answers("query_logs")],
    });
    assert.equal(out.status, 400);
    assert.equal(out.refusedBy, "thought-signature-known");
  });

  it("validates only the current turn, and neither Gemini 2.5 nor the Gemini 3 image models", async () => {
    const fake = await fresh({ respond: () => textAnswer("ok") });
    const older = [
      user("first question"),
      calls(call("query_logs")),
      answers("query_logs"),
      { role: "model", parts: [{ text: "done" }] },
    ];
    assert.equal(
      (await generate(fake, developer("gemini-3.5-flash"), { contents: [...older, user("next")] })).status,
      200,
    );
    const unsigned = { contents: [user("hi"), calls(call("query_logs")), answers("query_logs")] };
    assert.equal((await generate(fake, developer("gemini-2.5-flash"), unsigned)).status, 200);
    assert.equal((await generate(fake, vertex("gemini-3-pro-image-preview"), unsigned)).status, 200);
  });

  it("a function-call turn must be answered by as many function responses (every family)", async () => {
    const fake = await fresh({ respond: () => textAnswer("ok") });
    const out = await generate(fake, vertex("gemini-2.5-flash"), {
      contents: [user("hi"), calls(call("a"), call("b")), answers("a")],
    });
    assert.equal(out.status, 400);
    assert.deepEqual(out.body, recorded("vertex-400-function-response-count.json"));
  });

  it("thinking level: refused on 2.5 (recorded), per model on Gemini 3 (recorded), and never with a budget", async () => {
    const fake = await fresh({ respond: () => textAnswer("ok") });
    const withThinking = (thinkingConfig: unknown) => ({
      contents: [user("hi")],
      generationConfig: { thinkingConfig },
    });

    const on25 = await generate(fake, developer("gemini-2.5-flash"), withThinking({ thinkingLevel: "LOW" }));
    assert.equal(on25.status, 400);
    assert.deepEqual(on25.body, recorded("gemini-api-400-thinking-level-unsupported.json"));

    const medium = await generate(
      fake,
      developer("gemini-3-pro-preview"),
      withThinking({ thinkingLevel: "MEDIUM" }),
    );
    assert.deepEqual(medium.body, recorded("gemini-api-400-thinking-level-medium.json"));
    const vertexMedium = await generate(
      fake,
      vertex("gemini-3-pro-preview"),
      withThinking({ thinkingLevel: "MEDIUM" }),
    );
    assert.deepEqual(vertexMedium.body, recorded("vertex-400-thinking-level-medium.json"));
    const minimal = await generate(
      fake,
      developer("gemini-3.1-pro-preview"),
      withThinking({ thinkingLevel: "MINIMAL" }),
    );
    assert.match(JSON.stringify(minimal.body), /Thinking level MINIMAL is not supported for this model/);

    for (const [model, level] of [
      ["gemini-3.1-pro-preview", "MEDIUM"],
      ["gemini-3.5-flash", "MINIMAL"],
      ["gemini-3.1-flash-lite", "MEDIUM"],
    ]) {
      assert.equal(
        (await generate(fake, developer(model!), withThinking({ thinkingLevel: level }))).status,
        200,
        `${model} ${level}`,
      );
    }
    const both = await generate(
      fake,
      developer("gemini-3.5-flash"),
      withThinking({ thinkingLevel: "LOW", thinkingBudget: 512 }),
    );
    assert.equal(both.refusedBy, "thinking-level-and-budget");
    assert.equal(both.status, 400);
    // Gemini 3 still takes a bare budget (dhyansraj/mcp-mesh#1346 measured it honoured).
    assert.equal(
      (await generate(fake, developer("gemini-3.5-flash"), withThinking({ thinkingBudget: 512 }))).status,
      200,
    );
  });

  it("thinking budget ranges of 2.5, and the 65,536 output limit", async () => {
    const fake = await fresh({ respond: () => textAnswer("ok") });
    const budget = (thinkingBudget: number) => ({
      contents: [user("hi")],
      generationConfig: { thinkingConfig: { thinkingBudget } },
    });
    const pro0 = await generate(fake, developer("gemini-2.5-pro"), budget(0));
    assert.equal(pro0.refusedBy, "thinking-budget-range");
    assert.match(
      JSON.stringify(pro0.body),
      /The thinking budget 0 is invalid\. Please choose a value between 128 and 32768\./,
    );
    assert.equal((await generate(fake, developer("gemini-2.5-flash"), budget(0))).status, 200);
    assert.equal((await generate(fake, developer("gemini-2.5-flash-lite"), budget(256))).status, 400);
    assert.equal((await generate(fake, developer("gemini-2.5-pro"), budget(-1))).status, 200);
    const over = await generate(fake, developer("gemini-3.5-flash"), {
      contents: [user("hi")],
      generationConfig: { maxOutputTokens: 65_537 },
    });
    assert.equal(over.refusedBy, "max-output-tokens-range");
  });

  it("Vertex labels: the documented key and value format and count; ferret's own labels pass", async () => {
    const fake = await fresh({ respond: () => textAnswer("ok") });
    const labelled = (labels: Record<string, string>) => ({ contents: [user("hi")], labels });
    const ok = await generate(
      fake,
      vertex("gemini-3.5-flash"),
      labelled({ app: "ferret", role: "log_analyst" }),
    );
    assert.equal(ok.status, 200);
    for (const [labels, why] of [
      [{ Role: "planner" }, "an uppercase key"],
      [{ "1role": "planner" }, "a key not starting with a letter"],
      [{ role: "Planner" }, "an uppercase value"],
      [{ investigation_id: "inv/1" }, "a slash in a value"],
      [{ role: "x".repeat(64) }, "a 64-character value"],
      [Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, "v"])), "65 labels"],
    ] as const) {
      const out = await generate(fake, vertex("gemini-3.5-flash"), labelled(labels));
      assert.equal(out.refusedBy, "labels-format", why);
      assert.equal(out.status, 400, why);
    }
  });

  it("thinking counts against maxOutputTokens: past the cap the answer is cut and ends MAX_TOKENS", async () => {
    const fake = await fresh();
    const thinkingAnswer = (thoughts: number, answer: number) =>
      geminiAnswer([{ text: "x".repeat(100) }], {
        usageMetadata: {
          promptTokenCount: 10,
          candidatesTokenCount: answer,
          thoughtsTokenCount: thoughts,
          totalTokenCount: 10 + answer + thoughts,
        },
      });
    fake.reply(thinkingAnswer(478, 100), thinkingAnswer(600, 100), thinkingAnswer(300, 100));
    const ask = { contents: [user("hi")], generationConfig: { maxOutputTokens: 500 } };
    type Answer = {
      candidates: Array<{ finishReason: string; content: { parts: Array<{ text?: string }> } }>;
      usageMetadata: Record<string, number>;
    };
    const partly = (await generate(fake, developer("gemini-3.5-flash"), ask)).body as Answer;
    assert.equal(partly.candidates[0]!.finishReason, "MAX_TOKENS");
    assert.deepEqual(
      [partly.usageMetadata.thoughtsTokenCount, partly.usageMetadata.candidatesTokenCount],
      [478, 22],
    );
    assert.equal(partly.candidates[0]!.content.parts[0]!.text!.length, 22);
    const none = (await generate(fake, developer("gemini-3.5-flash"), ask)).body as Answer;
    assert.equal(none.candidates[0]!.finishReason, "MAX_TOKENS");
    assert.deepEqual(none.candidates[0]!.content.parts, []);
    assert.equal(none.usageMetadata.thoughtsTokenCount, 500);
    const fits = (await generate(fake, developer("gemini-3.5-flash"), ask)).body as Answer;
    assert.equal(fits.candidates[0]!.finishReason, "STOP");
  });

  it("a finish reason the SDK does not know fails the test; a continuation must use a token it issued", async () => {
    const fake = await fresh();
    fake.reply(
      geminiAnswer([{ text: "x" }], {
        candidates: [{ content: { parts: [{ text: "x" }] }, finishReason: "DONE" }],
      }),
    );
    assert.equal(
      (await generate(fake, developer("gemini-3.5-flash"), { contents: [user("hi")] })).status,
      599,
    );
    fake.reply(
      geminiAnswer([], {
        candidates: [
          { content: { parts: [{ text: "a" }] }, finishReason: "CONTINUATION", continuationToken: "dG9r" },
        ],
      }),
      textAnswer("b"),
    );
    await generate(fake, developer("gemini-3.5-flash"), { contents: [user("hi")] });
    const made = await generate(fake, developer("gemini-3.5-flash"), {
      contents: [user("hi")],
      continuationToken: "b3RoZXI=",
    });
    assert.equal(made.refusedBy, "continuation-token-issued");
    assert.equal(
      (
        await generate(fake, developer("gemini-3.5-flash"), {
          contents: [user("hi")],
          continuationToken: "dG9r",
        })
      ).status,
      200,
    );
  });

  it("every rule it enforces names its source", () => {
    for (const rule of RULES) {
      assert.match(rule.source, /https:\/\/|@google\/genai|#\d+/, rule.id);
      assert.ok(rule.wording.length > 0, rule.id);
    }
  });

  it("refuses nothing when built lax (for tests of the fake itself)", async () => {
    const fake = await fresh({ strict: false, respond: () => textAnswer("ok") });
    const out = await generate(fake, developer("gemini-3.5-flash"), {
      contents: [user("hi"), calls(call("query_logs")), answers("query_logs")],
    });
    assert.equal(out.status, 200);
  });
});

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { RequestRejectedError } from "../../../functions/src/model/errors.js";
import { GeminiModel } from "../../../functions/src/model/gemini.js";
import {
  DUMMY_SIGNATURE_SPELLINGS,
  type DummySpelling,
} from "../../../functions/src/model/gemini-mapping.js";
import type { GenerateRequest } from "../../../functions/src/model/port.js";
import { someBrief } from "../../helpers/briefs.js";
import { FakeGemini, geminiAnswer } from "../../helpers/fake-gemini.js";
import type { Backend } from "../../helpers/gemini-rules.js";

/**
 * The dummy thought signature's spelling is contested (issue 36.2): each backend of the fake is
 * set to take only one, and ferret must get its planned calls through on either, asking again
 * once with the other documented spelling and keeping to what worked per backend and model.
 */
const planned: GenerateRequest = {
  brief: someBrief("executor"),
  system: "You carry out one step.",
  messages: [
    { role: "user", text: "Step s1: who granted the role?" },
    { role: "model", toolCalls: [{ id: "s1-plan-0", name: "query_logs", args: { hours: 2 } }] },
    { role: "tool", responses: [{ id: "s1-plan-0", name: "query_logs", response: { rows: [] } }] },
  ],
};

const servers = new Map<string, FakeGemini>();
before(async () => {
  for (const backend of ["developer", "vertex"] as const)
    for (const spelling of ["literal", "base64"] as const)
      servers.set(
        `${backend}/${spelling}`,
        await FakeGemini.start({ dummySpelling: { [backend]: spelling } }),
      );
});
after(async () => {
  await Promise.all([...servers.values()].map((s) => s.stop()));
});
beforeEach(() => {
  for (const s of servers.values()) s.reset();
});

function modelOn(backend: Backend, server: FakeGemini, model = "gemini-3.1-flash-lite"): GeminiModel {
  return new GeminiModel({
    apiKey: "k",
    baseUrl: server.url,
    vertexai: backend === "vertex",
    liteModel: model,
  });
}

const sentSignature = (server: FakeGemini, index: number) =>
  server.requests[index]?.contents[1]?.parts[0]?.thoughtSignature;

for (const backend of ["developer", "vertex"] as const) {
  for (const accepted of ["literal", "base64"] as const satisfies readonly DummySpelling[]) {
    describe(`dummy thought signature on a ${backend} backend that takes only the ${accepted} spelling`, () => {
      it("gets the planned calls through, asking again at most once, and keeps to the spelling that worked", async () => {
        const server = servers.get(`${backend}/${accepted}`)!;
        server.reply(geminiAnswer([{ text: "done" }]));
        const model = modelOn(backend, server);
        assert.equal((await model.generate(planned)).text, "done");
        const refused = server.requests.filter((r) => r.refusedBy === "thought-signature-dummy-spelling");
        assert.equal(refused.length, accepted === "base64" ? 0 : 1);
        assert.equal(sentSignature(server, server.requests.length - 1), DUMMY_SIGNATURE_SPELLINGS[accepted]);
        if (refused[0]) assert.equal(refused[0].status, 400);

        // Remembered for this backend and model: the next call goes out right the first time.
        server.reset();
        server.reply(geminiAnswer([{ text: "again" }]));
        assert.equal((await model.generate(planned)).text, "again");
        assert.equal(server.requests.length, 1);
        assert.equal(sentSignature(server, 0), DUMMY_SIGNATURE_SPELLINGS[accepted]);
      });
    });
  }
}

describe("dummy thought signature: what is remembered, and what is not retried", () => {
  it("remembers per model: another model on the same backend starts from the first spelling again", async () => {
    const server = servers.get("developer/literal")!;
    server.reply(geminiAnswer([{ text: "ok" }]));
    const model = new GeminiModel({
      apiKey: "k",
      baseUrl: server.url,
      liteModel: "gemini-3.1-flash-lite",
      roles: {
        compressor: {
          model: "gemini-3.5-flash-lite",
          thinkingLevel: "low",
          thinkingBudget: 0,
          maxOutputTokens: 1000,
        },
      },
    });
    await model.generate(planned);
    server.reset();
    server.reply(geminiAnswer([{ text: "ok" }]));
    await model.generate({ ...planned, brief: someBrief("compressor") });
    assert.deepEqual(
      server.requests.map((r) => [r.model, r.refusedBy ?? "ok"]),
      [
        ["gemini-3.5-flash-lite", "thought-signature-dummy-spelling"],
        ["gemini-3.5-flash-lite", "ok"],
      ],
    );
  });

  it("a request with no dummy in it is not asked again when refused", async () => {
    const server = servers.get("vertex/literal")!;
    server.reply({
      status: 400,
      json: { error: { code: 400, message: "Invalid thought signature.", status: "INVALID_ARGUMENT" } },
    });
    const model = modelOn("vertex", server);
    await assert.rejects(
      model.generate({ ...planned, messages: [{ role: "user", text: "no calls here" }] }),
      RequestRejectedError,
    );
    assert.equal(server.requests.length, 1);
  });
});

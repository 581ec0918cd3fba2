import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { apiError, FakeGemini, textAnswer } from "../../helpers/fake-gemini.js";

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

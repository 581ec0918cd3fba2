import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toToolOutput } from "../../../functions/src/adapters/mcp/answer.js";
import type { JsonObject } from "../../../functions/src/domain/json.js";

/*
 * The rules of toToolOutput that the real answers (real-answers.test.ts) do not reach, on
 * made-up answers. Each test breaks when its rule does.
 */
type Data = { text: string[]; resources?: JsonObject[]; leftOut?: JsonObject[]; structured?: JsonObject };
const answer = (result: unknown, maxBytes = 1_000) => {
  const out = toToolOutput("mcp.s.t", "s", result, maxBytes);
  return { ...out, data: out.data as unknown as Data & { truncated?: boolean } };
};

describe("toToolOutput", () => {
  it("lists a binary resource and a part it cannot read as left out, without their bytes", () => {
    const out = answer({
      content: [
        {
          type: "resource",
          resource: { uri: "file:///a.bin", mimeType: "application/zip", blob: "UEsDBA==" },
        },
        { type: "resource", resource: { uri: "file:///b" } },
        { type: "text" },
      ],
    });
    assert.deepEqual(out.data.leftOut, [
      { type: "blob", mimeType: "application/zip", bytes: 4 },
      { type: "unreadable" },
      { type: "unreadable" },
    ]);
    assert.match(out.summary, /left out: 1 binary resource\(s\), 2 unreadable part\(s\)$/);
    assert.doesNotMatch(JSON.stringify(out.data), /UEsDBA|a\.bin/);
  });

  it("leaves out a resource whose uri is too long to label anything, and says the answer was cut", () => {
    const out = answer(
      {
        content: [{ type: "resource", resource: { uri: `https://x/${"a".repeat(1_100)}`, text: "body" } }],
      },
      10_000,
    );
    assert.equal(out.data.resources, undefined);
    assert.equal(out.data.truncated, true);
  });

  it("lists at most 20 left-out parts but counts them all", () => {
    const image = { type: "image", mimeType: "image/png", data: "AAAA" };
    const out = answer({ content: Array.from({ length: 25 }, () => image) });
    assert.equal(out.data.leftOut?.length, 20);
    assert.match(out.summary, /left out: 25 image\(s\)$/);
  });

  it("keeps text that is JSON but not the structured content; previews structured content over the cap", () => {
    const structured = { rows: "x".repeat(200) };
    const out = answer(
      { content: [{ type: "text", text: '{"rows":"other"}' }], structuredContent: structured },
      100,
    );
    assert.deepEqual(out.data.text, ['{"rows":"other"}']);
    assert.equal(out.data.structured?.truncated, true);
    assert.equal(Buffer.byteLength(String(out.data.structured?.preview)), 100 - 16);
    assert.match(out.summary, /, 100 bytes \(cut at 100 bytes\)$/);
  });

  it("leaves out structured content nested deeper than ferret reads", () => {
    let deep: JsonObject = {};
    for (let i = 0; i < 100; i++) deep = { d: deep };
    const out = answer({ content: [], structuredContent: deep });
    assert.equal(out.data.structured, undefined);
    assert.match(out.summary, /left out: 1 structured content object\(s\) past ferret.s JSON bounds$/);
  });

  it("cuts multi-byte text on a character boundary", () => {
    const out = answer({ content: [{ type: "text", text: "é".repeat(200) }] }, 257);
    assert.equal(out.data.text[0], "é".repeat(128));
    assert.equal(out.data.truncated, true);
  });
});

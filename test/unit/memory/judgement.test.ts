import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { MemoryFact } from "../../../functions/src/memory/fact.js";
import { IntrospectionSchema, MAX_NEW_FACTS } from "../../../functions/src/memory/introspection.js";
import { judge } from "../../../functions/src/memory/judgement.js";
import { memoryIdFor } from "../../../functions/src/memory/memory.js";
import { sampleFact } from "../../helpers/memory-facts.js";

const A = memoryIdFor("log_analyst", "s", sampleFact(0));
const B = memoryIdFor("log_analyst", "s", sampleFact(1));
const C = memoryIdFor("log_analyst", "s", sampleFact(2));
const INVENTED = memoryIdFor("log_analyst", "s", sampleFact(3));

const METHOD: MemoryFact = {
  kind: "column_format",
  table: "cloudaudit_googleapis_com_activity",
  column: "protopayload_auditlog.methodName",
  format: "api_method",
};

describe("judge: what the introspector's answer may change", () => {
  it("keeps only ids the session was given; invented ones are reported as ignored", () => {
    const j = judge(
      {
        facts: [],
        helpfulMemoryIds: [A, INVENTED],
        harmfulMemoryIds: [B, "mem_x", "ignore previous instructions"],
      },
      [A, B, C],
      [],
    );
    assert.deepEqual(j.helpful, [A]);
    assert.deepEqual(j.harmful, [B]);
    assert.deepEqual(j.ignored, [INVENTED, "mem_x", "ignore previous instructions"]);
    assert.deepEqual(j.conflicting, []);
  });

  it("an id in both lists is neither; duplicates count once; surrounding spaces are forgiven", () => {
    const j = judge(
      { facts: [], helpfulMemoryIds: [A, A, ` ${C} `, B], harmfulMemoryIds: [B] },
      [A, B, C],
      [],
    );
    assert.deepEqual(j.helpful, [A, C]);
    assert.deepEqual(j.harmful, []);
    assert.deepEqual(j.conflicting, [B]);
  });

  it("a malformed id in the session itself is never judged", () => {
    const j = judge({ facts: [], helpfulMemoryIds: ["../etc"], harmfulMemoryIds: [] }, ["../etc"], []);
    assert.deepEqual(j.helpful, []);
    assert.deepEqual(j.ignored, ["../etc"]);
  });

  it("facts: duplicates (whatever the key order) and restated memories dropped, at most MAX_NEW_FACTS", () => {
    const reordered = {
      format: "raw_text_line",
      column: "textPayload",
      table: "syslog",
      kind: "column_format",
    } as const;
    const j = judge(
      {
        facts: [
          { kind: "column_format", table: "syslog", column: "textPayload", format: "raw_text_line" },
          reordered,
          METHOD,
          ...Array.from({ length: 12 }, (_, i) => sampleFact(10 + i)),
        ],
        helpfulMemoryIds: [],
        harmfulMemoryIds: [],
      },
      [],
      [METHOD],
    );
    assert.deepEqual(j.facts[0], reordered);
    assert.equal(j.facts.length, MAX_NEW_FACTS);
    assert.ok(!j.facts.some((f) => f.kind === "column_format" && f.column === METHOD.column));
  });

  it("the schema bounds what the model may answer: typed facts, no text", () => {
    assert.equal(
      IntrospectionSchema.safeParse({ facts: [], helpfulMemoryIds: [], harmfulMemoryIds: [] }).success,
      true,
    );
    assert.equal(
      IntrospectionSchema.safeParse({ facts: [METHOD], helpfulMemoryIds: [], harmfulMemoryIds: [] }).success,
      true,
    );
    assert.equal(
      IntrospectionSchema.safeParse({
        facts: ["In syslog, textPayload holds the raw line."],
        helpfulMemoryIds: [],
        harmfulMemoryIds: [],
      }).success,
      false,
      "a fact written as a sentence",
    );
    assert.equal(
      IntrospectionSchema.safeParse({ claims: [], facts: [], helpfulMemoryIds: [], harmfulMemoryIds: [] })
        .success,
      true,
      "an unknown top-level key is dropped, never stored",
    );
    assert.equal(IntrospectionSchema.safeParse({ facts: [], helpfulMemoryIds: [] }).success, false);
  });
});

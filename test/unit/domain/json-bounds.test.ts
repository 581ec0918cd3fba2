import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { InvalidInputError } from "../../../functions/src/domain/errors.js";
import { normalizeNotification, parseNotification } from "../../../functions/src/domain/finding/finding.js";
import { JSON_LIMITS, JsonObjectSchema, jsonBoundsProblem } from "../../../functions/src/domain/json.js";
import { decodePubSubJson } from "../../../functions/src/entry/pubsub-message.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";

const BASE = readFileSync(fromRoot("examples/scenarios/cryptomining/notification.json"), "utf8");

/** The scenario's notification with a value nested `levels` deep in sourceProperties (~50 KB at 10k). */
function deepNotification(levels: number, open = '{"a":', close = "}"): string {
  const deep = `${open.repeat(levels)}1${close.repeat(levels)}`;
  const text = BASE.replace('"sourceProperties": {', `"sourceProperties": {"deep": ${deep},`);
  assert.notEqual(text, BASE, "the fixture has a sourceProperties object");
  return text;
}

function invalidInput(fn: () => unknown): InvalidInputError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof InvalidInputError, `expected InvalidInputError, got ${String(error)}`);
    assert.equal(error.retryable, false);
    return error;
  }
  assert.fail("nothing was thrown");
}

describe("deep and huge JSON is refused with a typed, non-retryable error (issue 16)", () => {
  it("a notification nested 10,000 levels deep names the field instead of overflowing the stack", () => {
    for (const [open, close] of [
      ['{"a":', "}"],
      ["[", "]"],
    ] as const) {
      const json: unknown = JSON.parse(deepNotification(10_000, open, close));
      // Before: normalizeNotification(parseNotification(json)) threw RangeError (exit 1, redelivered forever).
      const error = invalidInput(() => normalizeNotification(parseNotification(json)));
      assert.match(error.message, /^the notification is refused: finding\.sourceProperties\.deep\./);
      assert.match(error.message, /nested deeper than 64 levels/);
    }
  });

  it("a notification within the limits still parses", () => {
    const finding = normalizeNotification(parseNotification(JSON.parse(deepNotification(20))));
    assert.ok(finding.name.length > 0);
  });

  it("a Pub/Sub message is bounded before any handler sees it, so it is dead-lettered, not retried", () => {
    const data = Buffer.from(deepNotification(10_000, "[", "]")).toString("base64");
    const error = invalidInput(() => decodePubSubJson({ message: { data, messageId: "1" } }));
    assert.match(error.message, /^the message is refused: .*nested deeper than 64 levels/);
  });

  it("counts values, finite numbers and plain objects, iteratively", () => {
    assert.equal(jsonBoundsProblem({ a: [1, "x", null, true, { b: 2 }] }), undefined);
    assert.match(
      jsonBoundsProblem(Array.from({ length: JSON_LIMITS.maxValues + 1 }, () => 0)) ?? "",
      /more than 100000 JSON values/,
    );
    assert.match(jsonBoundsProblem({ n: Number.NaN }) ?? "", /^n: NaN is not a JSON number/);
    assert.match(jsonBoundsProblem({ d: new Date(0) }) ?? "", /^d: not a plain JSON object/);
    assert.equal(jsonBoundsProblem({ u: undefined }), undefined, "an absent property, as zod sees it");
    assert.match(jsonBoundsProblem({ f: () => 1 }) ?? "", /^f: function is not a JSON value/);
    // A million levels: the check itself must not recurse.
    let deep: unknown = 1;
    for (let i = 0; i < 1_000_000; i++) deep = [deep];
    assert.match(jsonBoundsProblem(deep) ?? "", /nested deeper than 64 levels/);
  });

  it("JsonObjectSchema (tool arguments, model output) carries the same bound", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = { a: deep };
    const result = JsonObjectSchema.safeParse({ x: deep });
    assert.equal(result.success, false);
    assert.match(result.error?.issues[0]?.message ?? "", /nested deeper than 64 levels/);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  analystVerdictOf,
  matches,
  parseListQuery,
  searchCriteria,
} from "../../../functions/src/console/filters.js";
import { InvalidInputError } from "../../../functions/src/domain/errors.js";
import { conclusion, finding, investigation } from "../notify/fixtures.js";

const SINCE = "2024-04-30T00:00:00.000Z";
const base = investigation({ status: "concluded", conclusion: conclusion() });

describe("investigation filters", () => {
  it("blank form fields are no filter; days defaults to 7", () => {
    const q = parseListQuery({ status: "", verdict: " ", q: "", days: "" });
    assert.equal(q.status, undefined);
    assert.equal(q.verdict, undefined);
    assert.equal(q.days, 7);
    assert.equal(q.field, "any");
  });

  it("refuses an unknown status or verdict with the field's name", () => {
    assert.throws(
      () => parseListQuery({ status: "done" }),
      (e: unknown) => e instanceof InvalidInputError && /status/.test(e.message),
    );
    assert.throws(
      () => parseListQuery({ verdict: "evil" }),
      (e: unknown) => e instanceof InvalidInputError && /verdict/.test(e.message),
    );
    assert.throws(() => parseListQuery({ days: "0" }), InvalidInputError);
  });

  it("ignores a repeated parameter instead of guessing", () => {
    assert.equal(parseListQuery({ status: ["concluded", "failed"] }).status, undefined);
  });

  it("each filter excludes what does not match", () => {
    const q = (raw: Record<string, string>) => parseListQuery(raw);
    assert.ok(matches(base, q({ status: "concluded" }), SINCE));
    assert.ok(!matches(base, q({ status: "running" }), SINCE));
    assert.ok(matches(base, q({ verdict: "true_positive" }), SINCE));
    assert.ok(!matches(base, q({ verdict: "benign" }), SINCE));
    assert.ok(matches(base, q({ severity: "HIGH" }), SINCE));
    assert.ok(!matches(base, q({ severity: "LOW" }), SINCE));
    assert.ok(matches(base, q({ category: "Persistence: IAM Anomalous Grant" }), SINCE));
    assert.ok(!matches(base, q({ category: "Persistence" }), SINCE), "category is exact, not a substring");
    assert.ok(matches(base, q({ analyst: "undecided" }), SINCE));
    assert.ok(!matches(base, q({}), "2024-05-02T00:00:00.000Z"), "changed before the window");
  });

  it("the analyst verdict is the latest confirm or dispute", () => {
    const decided = investigation({
      conclusion: conclusion(),
      analystDecisions: [
        {
          actionId: "a1",
          kind: "dispute",
          by: { id: "U0A" },
          verdict: "benign",
          reason: "ok ok",
          at: "2024-05-01T11:00:00.000Z",
        },
        { actionId: "a2", kind: "confirm", by: { id: "U0B" }, at: "2024-05-01T12:00:00.000Z" },
      ],
    });
    assert.equal(analystVerdictOf(decided), "true_positive");
    assert.equal(analystVerdictOf(investigation({ finding: finding() })), "undecided");
  });

  it("search asks the indexed queries for the chosen field only", () => {
    assert.deepEqual(searchCriteria(parseListQuery({ q: "203.0.113.7", field: "ioc" })), {
      iocValue: "203.0.113.7",
    });
    assert.deepEqual(searchCriteria(parseListQuery({ q: "a@b.c", field: "principal" })), {
      principal: "a@b.c",
    });
    assert.deepEqual(Object.keys(searchCriteria(parseListQuery({ q: "x" }))).sort(), [
      "iocValue",
      "principal",
      "resourceName",
    ]);
    assert.deepEqual(searchCriteria(parseListQuery({})), {});
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  analystVerdictOf,
  exactCriteria,
  matches,
  parseListQuery,
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
    assert.ok(matches(base, q({ category: "iam anomalous" }), SINCE), "category: any part, any case");
    assert.ok(!matches(base, q({ category: "Cryptocurrency" }), SINCE));
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

  it("search also asks the indexed exact queries, for the fields that have them, the value refanged", () => {
    assert.deepEqual(exactCriteria(parseListQuery({ q: "203.0.113[.]7", field: "ioc" })), {
      iocValue: "203.0.113.7",
    });
    assert.deepEqual(exactCriteria(parseListQuery({ q: "a[@]b.c", field: "principal" })), {
      principal: "a@b.c",
    });
    assert.deepEqual(Object.keys(exactCriteria(parseListQuery({ q: "x" }))).sort(), [
      "iocValue",
      "principal",
      "resourceName",
    ]);
    assert.deepEqual(exactCriteria(parseListQuery({ q: "mining", field: "category" })), {});
    assert.deepEqual(exactCriteria(parseListQuery({ q: "pool", field: "summary" })), {});
    assert.deepEqual(exactCriteria(parseListQuery({})), {});
  });

  it("search is a case-insensitive substring over IOCs, resource, principal, category and summary (issue 29)", () => {
    const found = (q: string, field = "any") => matches(base, parseListQuery({ q, field }), SINCE);
    assert.ok(found("203.0.113"), "part of an IOC");
    assert.ok(found("EVIL.EXAMPLE.COM"), "a conclusion IOC, any case");
    assert.ok(found("evil.example[.]com/payload"), "a defanged value as ferret shows it");
    assert.ok(found("PROD-PAY"), "the resource");
    assert.ok(found("attacker@"), "the principal (an IAM binding member)");
    assert.ok(found("anomalous grant"), "the category");
    assert.ok(found("granted itself owner"), "the summary");
    assert.ok(!found("203.0.113.99"));
    assert.ok(found("prod-payments", "resource"));
    assert.ok(!found("prod-payments", "ioc"), "only the chosen field");
    assert.ok(!found("203.0.113", "summary"), "the summary does not name the IP");
    assert.ok(found("owner", "summary"));
  });
});

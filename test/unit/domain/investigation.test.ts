import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  InvestigationSchema,
  investigationIdFor,
  settledVerdict,
  settledVerdictField,
} from "../../../functions/src/domain/investigation.js";
import { sccFinding } from "../../fixtures/scc.js";

const NAME =
  "organizations/123456789012/sources/11223344556677889900/findings/6d1f0c7a2e4b4b7d9f1a3c5e7b9d1f3a";

describe("investigationIdFor", () => {
  it("has the shape the investigation schema requires", () => {
    const id = investigationIdFor(NAME, "2024-05-14T09:31:07.123Z");
    assert.match(id, /^inv-[a-f0-9]{24}$/);
    assert.ok(InvestigationSchema.shape.id.safeParse(id).success);
  });

  it("is the same for every spelling of the same instant", () => {
    const spellings = [
      "2024-05-14T09:31:07Z",
      "2024-05-14T09:31:07.000Z",
      "2024-05-14T09:31:07.000000Z",
      "2024-05-14T09:31:07.000000000Z",
      "2024-05-14T11:31:07+02:00",
      "2024-05-14T04:01:07.000-05:30",
    ];
    const ids = new Set(spellings.map((t) => investigationIdFor(NAME, t)));
    assert.equal(ids.size, 1, `got ${[...ids].join(", ")}`);
  });

  it("is the same for a redelivery of the same notification", () => {
    const f = sccFinding("v1-cryptominer");
    const again = sccFinding("v1-cryptominer");
    assert.equal(investigationIdFor(f.name, f.eventTime), investigationIdFor(again.name, again.eventTime));
  });

  it("differs when the finding or the occurrence differs", () => {
    const base = investigationIdFor(NAME, "2024-05-14T09:31:07.123Z");
    const otherFinding = investigationIdFor(NAME.replace(/3a$/, "3b"), "2024-05-14T09:31:07.123Z");
    const oneMsLater = investigationIdFor(NAME, "2024-05-14T09:31:07.124Z");
    const nextDay = investigationIdFor(NAME, "2024-05-15T09:31:07.123Z");
    const ids = [base, otherFinding, oneMsLater, nextDay];
    assert.equal(new Set(ids).size, ids.length, ids.join(", "));
  });

  it("gives the two fixture findings different ids", () => {
    const a = sccFinding("v1-cryptominer");
    const b = sccFinding("v1-iam-anomalous-grant");
    assert.notEqual(investigationIdFor(a.name, a.eventTime), investigationIdFor(b.name, b.eventTime));
  });
});

it("the same finding delivered through a v1 and a v2 NotificationConfig is one investigation", () => {
  const v1 = "organizations/111/sources/222/findings/abc123";
  const v2 = "organizations/111/sources/222/locations/global/findings/abc123";
  const time = "2025-06-11T04:14:27Z";
  assert.equal(investigationIdFor(v1, time), investigationIdFor(v2, time));
  assert.notEqual(investigationIdFor(v1, time), investigationIdFor(v1.replace("abc123", "abc124"), time));
});

describe("settledVerdict", () => {
  const conclusion = { verdict: "benign" } as NonNullable<Parameters<typeof settledVerdict>[0]["conclusion"]>;
  it("is the verdict of a concluded investigation only", () => {
    assert.equal(settledVerdict({ status: "concluded", conclusion }), "benign");
    assert.equal(settledVerdict({ status: "needs_human", conclusion }), undefined);
    assert.equal(settledVerdict({ status: "concluded" }), undefined);
    assert.deepEqual(settledVerdictField({ status: "needs_human", conclusion }), {});
    assert.deepEqual(settledVerdictField({ status: "concluded", conclusion }), { verdict: "benign" });
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { implementationAt } from "../../../scripts/measure-findings.js";
import { measureHalf } from "../../../scripts/measure-halves.js";

/**
 * The third-round corpus (test/fixtures/real/scc-round3): the truth of each half was written
 * before ferret read it. The held-back half was measured once with recall 0/5: all five
 * indicators sit in an Event Threat Detection Cloud Logging entry ferret then refused as no
 * finding. After ferret learned to read that entry by its documented layout (etd-log-entry.ts,
 * decision 0054) both halves are held to recall ≥ 0.95 and precision ≥ 0.9; docs/findings.md
 * reports the first figure and the one after fixing the refused shape.
 */
const impl = await implementationAt(new URL("../../../", import.meta.url).pathname);

describe("third-round corpus", () => {
  it("tune half: recall ≥ 0.95 and precision ≥ 0.9 against the truth written before ferret ran", (t) => {
    const f = measureHalf(impl, "tune");
    t.diagnostic(
      `refused ${f.refused}; recall ${f.iocRight}/${f.iocExpected}; precision ${f.iocRight}/${f.iocReported}`,
    );
    assert.ok(f.samples >= 13, `${f.samples} payloads`);
    assert.ok(f.recall >= 0.95, `missed ${f.misses.join("; ")}`);
    assert.ok(f.precision >= 0.9, `not indicators but reported: ${f.falsePositives.join("; ")}`);
  });

  it("held-back half, after fixing the refused shape: recall ≥ 0.95 and precision ≥ 0.9", (t) => {
    const f = measureHalf(impl, "heldback");
    t.diagnostic(
      `refused ${f.refused}; recall ${f.iocRight}/${f.iocExpected}; precision ${f.iocRight}/${f.iocReported}`,
    );
    assert.ok(f.samples >= 13, `${f.samples} payloads`);
    assert.ok(f.recall >= 0.95, `missed ${f.misses.join("; ")}`);
    assert.ok(f.precision >= 0.9, `not indicators but reported: ${f.falsePositives.join("; ")}`);
  });
});

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { geometricMeanInterval } from "./overhead.js";

test("the interval holds the geometric mean, and equal ratios have no spread", () => {
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: 0.1, max: 10, noNaN: true }), { minLength: 2, maxLength: 50 }),
      (ratios) => {
        const { ratio, low, high } = geometricMeanInterval(ratios);
        assert.ok(low <= ratio + 1e-9 && ratio <= high + 1e-9, `${low} ${ratio} ${high}`);
        assert.ok(ratio >= Math.min(...ratios) - 1e-3 && ratio <= Math.max(...ratios) + 1e-3);
      },
    ),
    { seed: 55 },
  );
  assert.deepEqual(geometricMeanInterval([1.02, 1.02, 1.02]), { ratio: 1.02, low: 1.02, high: 1.02 });
  // exp(mean(log 0.5, log 2)) = 1.
  assert.equal(geometricMeanInterval([0.5, 2]).ratio, 1);
});

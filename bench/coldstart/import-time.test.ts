import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { frameworkSharesExpress } from "./import-time.js";

describe("cold-import probes", () => {
  it("load express before timing only because functions-framework serves with the very same copy", () => {
    // If this fails, the console would be charged express again: drop the preload or dedupe.
    assert.equal(frameworkSharesExpress(), true);
  });
});

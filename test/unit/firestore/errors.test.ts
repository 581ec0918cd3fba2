import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ambiguousCommit, toStorageError } from "../../../functions/src/adapters/firestore/errors.js";

const grpcError = (code: number, message: string) => Object.assign(new Error(message), { code });

describe("Firestore error classification", () => {
  it("a transaction the server no longer knows is an unknown outcome, worth retrying", () => {
    for (const message of [
      "3 INVALID_ARGUMENT: Transaction is invalid or closed.",
      "3 INVALID_ARGUMENT: The referenced transaction has expired or is no longer valid.",
      "3 INVALID_ARGUMENT: transaction expired",
    ]) {
      const classified = ambiguousCommit(grpcError(3, message));
      assert.ok(classified, message);
      assert.equal(classified.retryable, true);
      assert.match(classified.message, /^Firestore transaction outcome unknown: /);
    }
  });

  it("other invalid arguments, and other codes, are not", () => {
    assert.equal(ambiguousCommit(grpcError(3, "3 INVALID_ARGUMENT: Property name is too long")), undefined);
    assert.equal(ambiguousCommit(grpcError(14, "14 UNAVAILABLE: transaction is invalid")), undefined);
    assert.equal(ambiguousCommit(new Error("transaction is invalid")), undefined);
  });

  it("toStorageError keeps UNAVAILABLE retryable and INVALID_ARGUMENT not", () => {
    assert.equal(toStorageError(grpcError(14, "unavailable"), "get x").retryable, true);
    assert.equal(toStorageError(grpcError(3, "bad"), "get x").retryable, false);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  cookieValue,
  csrfToken,
  newCsrfSecret,
  sameOrigin,
  validCsrfToken,
} from "../../../functions/src/console/csrf.js";

describe("console CSRF checks", () => {
  const secret = newCsrfSecret();
  it("a token is bound to the browser's secret and the user", () => {
    const token = csrfToken(secret, "ana@example.com");
    assert.ok(validCsrfToken(secret, "ana@example.com", token));
    assert.ok(!validCsrfToken(secret, "eve@example.com", token), "another user");
    assert.ok(!validCsrfToken(newCsrfSecret(), "ana@example.com", token), "another browser");
    assert.ok(!validCsrfToken(undefined, "ana@example.com", token), "no cookie");
    assert.ok(!validCsrfToken(secret, "ana@example.com", ""), "empty");
    assert.ok(!validCsrfToken(secret, "ana@example.com", ["x"]), "not a string");
  });
  it("same origin: Origin decides when present, else Sec-Fetch-Site, else refused", () => {
    const own = "http://127.0.0.1:8080";
    assert.equal(sameOrigin({ origin: own }, own).ok, true);
    assert.equal(sameOrigin({ origin: "http://127.0.0.1:8081" }, own).ok, false);
    assert.equal(sameOrigin({ origin: "null" }, own).ok, false);
    assert.equal(sameOrigin({ origin: "http://evil", secFetchSite: "same-origin" }, own).ok, false);
    assert.equal(sameOrigin({ secFetchSite: "same-origin" }, own).ok, true);
    assert.equal(sameOrigin({ secFetchSite: "cross-site" }, own).ok, false);
    assert.equal(sameOrigin({}, own).ok, false);
  });
  it("reads one cookie", () => {
    assert.equal(cookieValue("a=1; ferret_csrf=abc; b=2", "ferret_csrf"), "abc");
    assert.equal(cookieValue("xferret_csrf=abc", "ferret_csrf"), undefined);
    assert.equal(cookieValue(undefined, "ferret_csrf"), undefined);
  });
});

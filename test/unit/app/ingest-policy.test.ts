import assert from "node:assert/strict";
import { test } from "node:test";
import { policySkipReason } from "../../../functions/src/app/ingest.js";
import { ConfigSchema } from "../../../functions/src/config/config.js";
import {
  type Finding,
  normalizeNotification,
  parseNotification,
} from "../../../functions/src/domain/finding.js";

function finding(overrides: Record<string, unknown> = {}): Finding {
  return normalizeNotification(
    parseNotification({
      finding: {
        name: "organizations/1/sources/2/findings/f1",
        category: "Execution: Cryptocurrency Mining Hash Match",
        eventTime: "2026-01-01T00:00:00Z",
        severity: "HIGH",
        state: "ACTIVE",
        mute: "UNMUTED",
        ...overrides,
      },
    }),
  );
}

const ingest = (over: Record<string, unknown> = {}) => ConfigSchema.parse({ ingest: over }).ingest;

test("an active, unmuted finding at or above the minimum severity is investigated", () => {
  assert.equal(policySkipReason(finding(), ingest({ minimumSeverity: "HIGH" })), undefined);
});

test("ignored categories match by glob, case-insensitively", () => {
  const reason = policySkipReason(finding(), ingest({ ignoreCategories: ["execution: *"] }));
  assert.match(reason ?? "", /matches ignore rule "execution: \*"/);
  assert.equal(policySkipReason(finding(), ingest({ ignoreCategories: ["Discovery: *"] })), undefined);
});

test("findings below the minimum severity are skipped", () => {
  assert.match(
    policySkipReason(finding({ severity: "LOW" }), ingest({ minimumSeverity: "MEDIUM" })) ?? "",
    /LOW is below the minimum MEDIUM/,
  );
  assert.match(
    policySkipReason(finding({ severity: undefined }), ingest({ minimumSeverity: "LOW" })) ?? "",
    /SEVERITY_UNSPECIFIED/,
  );
});

test("muted and inactive findings are skipped unless configured otherwise", () => {
  assert.equal(policySkipReason(finding({ mute: "MUTED" }), ingest()), "the finding is muted");
  assert.equal(policySkipReason(finding({ mute: "MUTED" }), ingest({ skipMuted: false })), undefined);
  assert.match(policySkipReason(finding({ state: "INACTIVE" }), ingest()) ?? "", /INACTIVE, not ACTIVE/);
  assert.equal(policySkipReason(finding({ state: "INACTIVE" }), ingest({ skipInactive: false })), undefined);
});

test("a garbage severity or a lowercase state is skipped with a reason that says so (issue 16)", () => {
  assert.match(
    policySkipReason(finding({ severity: "SUPER-BAD" }), ingest()) ?? "",
    /severity SEVERITY_UNSPECIFIED \(missing, or not an SCC severity: CRITICAL, HIGH, MEDIUM, LOW\) is below the minimum LOW/,
  );
  assert.match(
    policySkipReason(finding({ state: "active" }), ingest()) ?? "",
    /the finding state "active" is not an SCC state \(ACTIVE or INACTIVE, upper case\)/,
  );
});

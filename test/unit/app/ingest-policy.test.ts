import assert from "node:assert/strict";
import { test } from "node:test";
import { ingestDecision, policySkipReason } from "../../../functions/src/app/ingest.js";
import { ConfigSchema } from "../../../functions/src/config/config.js";
import {
  type Finding,
  normalizeNotification,
  parseNotification,
} from "../../../functions/src/domain/finding/finding.js";

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
});

test("a finding with neither severity nor hint follows ingest.unspecifiedSeverity, with the reason given", () => {
  const none = finding({ severity: undefined });
  assert.equal(none.severitySource, "none");
  assert.deepEqual(ingestDecision(none, ingest({ minimumSeverity: "HIGH" })), {
    action: "investigate",
    reason:
      "the finding has no SCC severity (missing, or not one of CRITICAL, HIGH, MEDIUM, LOW) and carries no severity hint; ingest.unspecifiedSeverity is investigate",
  });
  assert.deepEqual(ingestDecision(none, ingest({ unspecifiedSeverity: "skip" })), {
    action: "skip",
    reason:
      "the finding has no SCC severity (missing, or not one of CRITICAL, HIGH, MEDIUM, LOW) and carries no severity hint; ingest.unspecifiedSeverity is skip",
  });
});

test("a finding without a severity takes the one its sourceProperties hint at, and the minimum applies", () => {
  const hinted = finding({ severity: undefined, sourceProperties: { SeverityLevel: "Low" } });
  assert.equal(hinted.severity, "LOW");
  assert.equal(hinted.severitySource, "sourceProperties.SeverityLevel");
  assert.match(
    policySkipReason(hinted, ingest({ minimumSeverity: "MEDIUM" })) ?? "",
    /LOW is below the minimum MEDIUM/,
  );
  const etd = finding({ severity: "SEVERITY_UNSPECIFIED", sourceProperties: { detectionPriority: "HIGH" } });
  assert.deepEqual(ingestDecision(etd, ingest({ minimumSeverity: "HIGH" })), {
    action: "investigate",
    reason:
      "ACTIVE HIGH finding at or above the minimum HIGH (severity from sourceProperties.detectionPriority)",
  });
});

test("the finding's own severity wins over a hint", () => {
  const own = finding({ severity: "LOW", sourceProperties: { detectionPriority: "HIGH" } });
  assert.equal(own.severity, "LOW");
  assert.equal(own.severitySource, "finding");
});

test("a hint that is not a severity is not used", () => {
  const junk = finding({ severity: undefined, sourceProperties: { SeverityLevel: "URGENT!!" } });
  assert.equal(junk.severity, "SEVERITY_UNSPECIFIED");
  assert.equal(junk.severitySource, "none");
});

test("muted and inactive findings are skipped unless configured otherwise", () => {
  assert.equal(policySkipReason(finding({ mute: "MUTED" }), ingest()), "the finding is muted");
  assert.equal(policySkipReason(finding({ mute: "MUTED" }), ingest({ skipMuted: false })), undefined);
  assert.match(policySkipReason(finding({ state: "INACTIVE" }), ingest()) ?? "", /INACTIVE, not ACTIVE/);
  assert.equal(policySkipReason(finding({ state: "INACTIVE" }), ingest({ skipInactive: false })), undefined);
});

test("a garbage severity or a lowercase state is skipped with a reason that says so (issue 16)", () => {
  // Not skipped as "below LOW": an unknown severity follows ingest.unspecifiedSeverity, and says why.
  const garbage = finding({ severity: "SUPER-BAD" });
  assert.deepEqual(ingestDecision(garbage, ingest()), {
    action: "investigate",
    reason:
      "the finding has no SCC severity (missing, or not one of CRITICAL, HIGH, MEDIUM, LOW) and carries no severity hint; ingest.unspecifiedSeverity is investigate",
  });
  assert.match(
    policySkipReason(garbage, ingest({ unspecifiedSeverity: "skip" })) ?? "",
    /not one of CRITICAL, HIGH, MEDIUM, LOW.*unspecifiedSeverity is skip/,
  );
  assert.match(
    policySkipReason(finding({ state: "active" }), ingest()) ?? "",
    /the finding state "active" is not an SCC state \(ACTIVE or INACTIVE, upper case\)/,
  );
});

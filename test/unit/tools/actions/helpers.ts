import { readFileSync } from "node:fs";
import { type Approval, callDigest } from "../../../../functions/src/domain/approval.js";
import {
  type Finding,
  normalizeNotification,
  parseNotification,
} from "../../../../functions/src/domain/finding/finding.js";
import type { JsonObject } from "../../../../functions/src/domain/json.js";
import { silentLogger } from "../../../../functions/src/platform/logger.js";
import type { ToolContext, ToolOutput } from "../../../../functions/src/tools/port.js";

export function findingFrom(path: string, edit?: (raw: Record<string, unknown>) => void): Finding {
  const raw = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  edit?.(raw);
  return normalizeNotification(parseNotification(raw));
}

/** The real VM Threat Detection finding: a Compute instance named by id, display name saturn-…. */
export const CRYPTO = "test/fixtures/real/scc/leonardo-vmtd-cryptocurrency-mining-combined.json";
/** ferret's anomalous-grant fixture: a key made the call, and the grant is roles/owner to mallory. */
export const GRANT = "test/fixtures/scc/v1-iam-anomalous-grant.json";

export const GRANT_KEY =
  "projects/acme-prod/serviceAccounts/ci-deployer@acme-prod.iam.gserviceaccount.com/keys/0f1e2d3c4b5a69788796a5b4c3d2e1f0";

export function context(finding: Finding, approvals: Approval[] = []): ToolContext {
  return { investigationId: "inv-actions", finding, logger: silentLogger, approvals };
}

export function approve(tool: string, args: JsonObject, investigationId = "inv-actions"): Approval {
  return {
    investigationId,
    tool,
    argsDigest: callDigest(tool, args),
    decision: "approved",
    decidedBy: "U0APPROVER",
    decidedAt: "2026-11-25T17:00:00.000Z",
  };
}

export function errorCode(output: ToolOutput): { code: string; retryable: boolean; message: string } {
  const data = output.data as { error?: { code: string; retryable: boolean; message: string } };
  if (!data.error) throw new Error(`no error in ${JSON.stringify(output.data)}`);
  return data.error;
}

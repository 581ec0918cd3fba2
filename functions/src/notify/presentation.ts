import type { Verdict } from "../domain/conclusion.js";
import type { Severity } from "../domain/finding/finding.js";
import type { StepStatus } from "../domain/plan.js";

/**
 * Words and emoji a security engineer scans for. Unicode emoji rather than `:shortcodes:`
 * so the terminal and file sinks read the same as Slack.
 */

export const VERDICT_LABEL: Record<Verdict, { emoji: string; text: string }> = {
  true_positive: { emoji: "🚨", text: "True positive" },
  false_positive: { emoji: "✅", text: "False positive" },
  benign: { emoji: "🟢", text: "Benign" },
  inconclusive: { emoji: "❓", text: "Inconclusive" },
};

export const SEVERITY_EMOJI: Record<Severity, string> = {
  CRITICAL: "🔴",
  HIGH: "🟠",
  MEDIUM: "🟡",
  LOW: "🔵",
  SEVERITY_UNSPECIFIED: "⚪",
};

export const STEP_STATUS_EMOJI: Record<StepStatus, string> = {
  pending: "⏳",
  running: "▶️",
  done: "✅",
  failed: "❌",
  cancelled: "🚫",
};

export { OFFLINE_BRAIN_TEXT as OFFLINE_MODEL_NOTE } from "../model/brain.js";

export function verdictText(verdict: Verdict): string {
  const v = VERDICT_LABEL[verdict];
  return `${v.emoji} ${v.text}`;
}

export function severityText(severity: Severity): string {
  const name = severity === "SEVERITY_UNSPECIFIED" ? "UNSPECIFIED" : severity;
  return `${SEVERITY_EMOJI[severity]} ${name}`;
}

/** 0.853 → "85%"; clamps so a model's 1.2 never renders as 120%. */
export function percent(confidence: number): string {
  const clamped = Math.min(1, Math.max(0, Number.isFinite(confidence) ? confidence : 0));
  return `${Math.round(clamped * 100)}%`;
}

export function seconds(fromIso: string, toIso: string): string {
  const ms = Date.parse(toIso) - Date.parse(fromIso);
  if (!Number.isFinite(ms) || ms < 0) return "?s";
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

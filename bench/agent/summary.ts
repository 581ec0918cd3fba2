import type { DecisiveCoverage } from "../lib/decisive.js";
import { ratio } from "../lib/stats.js";

/** The three columns of section 1: two configurations of the one workflow, and the ReAct loop. */
export type ConfigName = "ferret" | "baseline" | "react";

/** What every column measures the same way. */
export interface Measured {
  scenario: string;
  config: ConfigName;
  status: string;
  verdict: string | null;
  /** Concluded with a verdict expected.json accepts. */
  correct: boolean;
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
  /**
   * What these tokens would cost on the default Gemini model at list price (the bench's model
   * is offline, so this is a what-if, not a bill; no cached or thinking tokens are assumed).
   */
  estimatedUsd: number;
  wallMs: number;
  /** Whether the run queried the evidence that decides the scenario: a cheaper run that misses it is a regression. */
  decisive: DecisiveCoverage;
}

export interface Totals {
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
  estimatedUsd: number;
  wallMs: number;
}

/** A column against the sequential baseline: below 1 is fewer calls, tokens, seconds. */
export interface Ratios {
  llmCalls: number;
  tokens: number;
  wallMs: number;
}

/** Issue 18's targets for ferret against the sequential baseline. */
export const TARGET_RATIO = 0.6;

export interface TargetCheck {
  metric: keyof Ratios;
  ratio: number;
  met: boolean;
}

export function totalsOf(runs: readonly Measured[]): Totals {
  return {
    llmCalls: runs.reduce((s, r) => s + r.llmCalls, 0),
    inputTokens: runs.reduce((s, r) => s + r.inputTokens, 0),
    outputTokens: runs.reduce((s, r) => s + r.outputTokens, 0),
    estimatedUsd: runs.reduce((s, r) => s + r.estimatedUsd, 0),
    wallMs: runs.reduce((s, r) => s + r.wallMs, 0),
  };
}

/** `of` divided by the baseline, per metric. */
export function vsBaseline(of: Totals, baseline: Totals): Ratios {
  return {
    llmCalls: ratio(of.llmCalls, baseline.llmCalls),
    tokens: ratio(of.inputTokens + of.outputTokens, baseline.inputTokens + baseline.outputTokens),
    wallMs: ratio(of.wallMs, baseline.wallMs),
  };
}

/** A target is met when the ratio is a number at or below it (no baseline is no pass). */
export function checkTargets(ratios: Ratios, target = TARGET_RATIO): TargetCheck[] {
  return (["llmCalls", "tokens", "wallMs"] as const).map((metric) => {
    const value = ratios[metric];
    return { metric, ratio: value, met: Number.isFinite(value) && value <= target };
  });
}

/** The same verdict from every column (a verdict that changed is the first thing to read). */
export function verdictsAgree(runs: readonly Measured[]): boolean {
  return runs.every((r) => r.verdict === runs[0]?.verdict);
}

import type { Conclusion } from "../domain/conclusion.js";
import type { Investigation, InvestigationEvent } from "../domain/investigation.js";
import type { Reflection } from "../domain/reflection.js";
import { ACTION_LINK_LEAD, actionCallText } from "../domain/response-actions.js";
import type { StepResult } from "../domain/results.js";
import { brainOf } from "../model/brain.js";
import { describeUsage } from "../model/cost.js";
import { terminalLine } from "./terminal-text.js";

/**
 * Terminal narration of an investigation: what a person watching the demo needs to
 * follow it (plan, each step with its tool calls, reflections, the verdict). Every value
 * printed here may carry attacker text, so every one goes through `clip` (terminalLine)
 * before it is coloured; only this file's own colour codes reach the terminal.
 */
export interface Printer {
  line(text: string): void;
}

const useColor = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: string) => (text: string) => (useColor ? `\x1b[${code}m${text}\x1b[0m` : text);
const bold = paint("1");
const dim = paint("2");
const green = paint("32");
const red = paint("31");
const yellow = paint("33");
const cyan = paint("36");

const clip = terminalLine;

export function printHeader(p: Printer, inv: Investigation): void {
  const f = inv.finding;
  p.line(bold(`▶ ${clip(f.category, 200)}`) + dim(`  [${clip(f.severity, 40)}]`));
  p.line(`  resource  ${clip(f.resource.name, 300)}`);
  p.line(`  event     ${clip(f.eventTime, 40)}   investigation ${clip(inv.id, 120)}`);
}

export function printPlan(p: Printer, inv: Investigation): void {
  if (!inv.plan) return;
  p.line(bold("\n■ Plan") + dim(`  (${clip(inv.model, 80)})`));
  p.line(`  objective: ${clip(inv.plan.objective, 300)}`);
  for (const s of inv.plan.steps) {
    const deps = s.dependsOn.length ? dim(` after ${clip(s.dependsOn.join(", "), 120)}`) : "";
    p.line(
      `  ${cyan(clip(s.id, 40))} ${clip(s.description, 120)} ${dim(`[${clip(s.tools.join(", "), 160)}]`)}${deps}`,
    );
  }
}

export function printStepResult(p: Printer, r: StepResult): void {
  const mark = r.status === "done" ? green("✓") : red("✗");
  p.line(
    `\n${mark} ${bold(clip(r.stepId, 40))} ${dim(`${clip(r.outcome, 40)}, ${r.toolCalls.length} tool call(s), ${r.iterations} round(s)`)}`,
  );
  for (const c of r.toolCalls) {
    const args = clip(JSON.stringify(c.args), 140);
    p.line(`    ${c.ok ? "→" : red("→")} ${clip(c.name, 60)} ${dim(args)}`);
    p.line(`      ${dim(clip(c.summary, 180))}`);
  }
  p.line(`    ${clip(r.summary, 400)}`);
  for (const fact of r.facts.slice(0, 5)) p.line(`    • ${clip(fact, 200)}`);
  if (r.error) p.line(`    ${yellow(`! ${clip(r.error, 200)}`)}`);
}

export function printReflection(p: Printer, r: Reflection): void {
  p.line(bold(`\n↻ Reflection after wave ${r.wave}`) + (r.achieved ? green("  objective achieved") : ""));
  for (const i of r.insights.slice(0, 4)) p.line(`    • ${clip(i, 200)}`);
  for (const u of r.applied) {
    const what =
      u.op === "add"
        ? `add ${clip(u.step.id, 40)}: ${clip(u.step.description, 100)}`
        : u.op === "cancel"
          ? `cancel ${clip(u.id, 40)}: ${clip(u.reason, 160)}`
          : `update ${clip(u.id, 40)}`;
    p.line(`    ${cyan("plan")} ${what}`);
  }
  for (const r2 of r.refused)
    p.line(`    ${yellow("refused")} ${clip(r2.update.op, 20)}: ${clip(r2.reason, 160)}`);
}

export function printConclusion(p: Printer, inv: Investigation): void {
  const c: Conclusion | undefined = inv.conclusion;
  if (!c) {
    p.line(red(`\n■ ${clip(inv.status, 40)}: ${clip(inv.reason ?? "no conclusion", 500)}`));
    return;
  }
  const verdictColor = c.verdict === "true_positive" ? red : c.verdict === "inconclusive" ? yellow : green;
  const held = inv.status !== "concluded";
  p.line(bold("\n■ Conclusion") + (held ? yellow(`  (${clip(inv.status, 40)}: draft, not applied)`) : ""));
  if (held) p.line(yellow(`  why         ${clip(inv.reason ?? "no reason recorded", 500)}`));
  p.line(
    `  verdict     ${verdictColor(bold(clip(c.verdict, 40)))}${held ? yellow(" (draft)") : ""}  confidence ${Math.round(c.confidence * 100)}%  severity ${clip(c.severity, 40)}`,
  );
  if (c.why) p.line(`  because     ${clip(c.why, 300)}`);
  p.line(`  summary     ${clip(c.summary, 500)}`);
  if (c.mitre.length)
    p.line(
      `  MITRE       ${clip(c.mitre.map((m) => `${m.techniqueId} ${m.techniqueName ?? ""}`.trim()).join(", "), 400)}`,
    );
  for (const k of c.keyFindings) {
    p.line(`  • ${clip(k.finding, 200)}`);
    for (const e of k.evidence)
      p.line(`      ${dim(`${clip(e.stepId ?? "-", 40)} / ${clip(e.source, 60)}: ${clip(e.detail, 160)}`)}`);
  }
  if (c.iocs.length)
    p.line(`  IOCs        ${clip(c.iocs.map((i) => `${i.type}:${i.value}`).join("  "), 600)}`);
  for (const a of c.recommendedActions) {
    p.line(`  [${clip(a.priority, 20)}] ${clip(a.action, 200)}`);
    if (a.link) p.line(`      ↳ ${ACTION_LINK_LEAD} ${clip(actionCallText(a.link), 300)}`);
  }
  for (const q of c.openQuestions) p.line(`  ? ${clip(q, 200)}`);
  p.line(
    dim(
      `  produced by ${clip(`${c.producedBy.model}${c.producedBy.note ? ` — ${c.producedBy.note}` : ""}`, 300)}`,
    ),
  );
  for (const d of inv.analystDecisions ?? []) {
    const what =
      d.kind === "confirm" ? "confirmed" : d.kind === "dispute" ? `disputed → ${d.verdict ?? "?"}` : d.kind;
    const reason = d.reason ? `: ${clip(d.reason, 300)}` : "";
    // Analysts' text is untrusted too: clip() passes it through the terminal sanitizer.
    p.line(
      `  analyst     ${clip(what, 60)} by ${clip(d.by.name ?? d.by.id, 80)} at ${clip(d.at, 40)}${reason}`,
    );
  }
  const offline = brainOf(inv).kind === "offline";
  p.line(dim(`  ${describeUsage(inv.counters.usage, { offline })} · ${inv.counters.stepsExecuted} steps`));
}

export function printEvent(p: Printer, e: InvestigationEvent): void {
  if (e.type === "step_started") p.line(dim(`  … ${clip(e.message, 160)}`));
}

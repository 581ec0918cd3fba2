import type { Conclusion } from "../domain/conclusion.js";
import type { Investigation, InvestigationEvent } from "../domain/investigation.js";
import type { Reflection } from "../domain/reflection.js";
import type { StepResult } from "../domain/results.js";

/**
 * Terminal narration of an investigation: what a person watching the demo needs to
 * follow it (plan, each step with its tool calls, reflections, the verdict).
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

function clip(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function printHeader(p: Printer, inv: Investigation): void {
  const f = inv.finding;
  p.line(bold(`▶ ${f.category}`) + dim(`  [${f.severity}]`));
  p.line(`  resource  ${f.resource.name}`);
  p.line(`  event     ${f.eventTime}   investigation ${inv.id}`);
}

export function printPlan(p: Printer, inv: Investigation): void {
  if (!inv.plan) return;
  p.line(bold("\n■ Plan") + dim(`  (${inv.model})`));
  p.line(`  objective: ${clip(inv.plan.objective, 300)}`);
  for (const s of inv.plan.steps) {
    const deps = s.dependsOn.length ? dim(` after ${s.dependsOn.join(", ")}`) : "";
    p.line(`  ${cyan(s.id)} ${clip(s.description, 120)} ${dim(`[${s.tools.join(", ")}]`)}${deps}`);
  }
}

export function printStepResult(p: Printer, r: StepResult): void {
  const mark = r.status === "done" ? green("✓") : red("✗");
  p.line(
    `\n${mark} ${bold(r.stepId)} ${dim(`${r.outcome}, ${r.toolCalls.length} tool call(s), ${r.iterations} round(s)`)}`,
  );
  for (const c of r.toolCalls) {
    const args = clip(JSON.stringify(c.args), 140);
    p.line(`    ${c.ok ? "→" : red("→")} ${c.name} ${dim(args)}`);
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
        ? `add ${u.step.id}: ${clip(u.step.description, 100)}`
        : u.op === "cancel"
          ? `cancel ${u.id}: ${u.reason}`
          : `update ${u.id}`;
    p.line(`    ${cyan("plan")} ${what}`);
  }
  for (const r2 of r.refused) p.line(`    ${yellow("refused")} ${r2.update.op}: ${clip(r2.reason, 160)}`);
}

export function printConclusion(p: Printer, inv: Investigation): void {
  const c: Conclusion | undefined = inv.conclusion;
  if (!c) {
    p.line(red(`\n■ ${inv.status}: ${inv.reason ?? "no conclusion"}`));
    return;
  }
  const verdictColor = c.verdict === "true_positive" ? red : c.verdict === "inconclusive" ? yellow : green;
  const held = inv.status !== "concluded";
  p.line(bold("\n■ Conclusion") + (held ? yellow(`  (${inv.status}: draft, not applied)`) : ""));
  if (held) p.line(yellow(`  why         ${clip(inv.reason ?? "no reason recorded", 500)}`));
  p.line(
    `  verdict     ${verdictColor(bold(c.verdict))}${held ? yellow(" (draft)") : ""}  confidence ${Math.round(c.confidence * 100)}%  severity ${c.severity}`,
  );
  p.line(`  summary     ${clip(c.summary, 500)}`);
  if (c.mitre.length)
    p.line(
      `  MITRE       ${c.mitre.map((m) => `${m.techniqueId} ${m.techniqueName ?? ""}`.trim()).join(", ")}`,
    );
  for (const k of c.keyFindings) {
    p.line(`  • ${clip(k.finding, 200)}`);
    for (const e of k.evidence)
      p.line(`      ${dim(`${e.stepId ?? "-"} / ${e.source}: ${clip(e.detail, 160)}`)}`);
  }
  if (c.iocs.length) p.line(`  IOCs        ${c.iocs.map((i) => `${i.type}:${i.value}`).join("  ")}`);
  for (const a of c.recommendedActions) p.line(`  [${a.priority}] ${clip(a.action, 200)}`);
  for (const q of c.openQuestions) p.line(`  ? ${clip(q, 200)}`);
  p.line(dim(`  produced by ${c.producedBy.model}${c.producedBy.note ? ` — ${c.producedBy.note}` : ""}`));
  for (const d of inv.analystDecisions ?? []) {
    const what =
      d.kind === "confirm" ? "confirmed" : d.kind === "dispute" ? `disputed → ${d.verdict ?? "?"}` : d.kind;
    const reason = d.reason ? `: ${clip(d.reason, 300)}` : "";
    // Analysts' text never drives the terminal.
    p.line(
      `  analyst     ${what} by ${clip(d.by.name ?? d.by.id, 80)} at ${d.at}${reason}`.replace(
        /\p{Cc}/gu,
        "",
      ),
    );
  }
  const u = inv.counters.usage;
  p.line(
    dim(
      `  ${u.llmCalls} model calls, ${u.inputTokens} input + ${u.outputTokens} output tokens, ${inv.counters.stepsExecuted} steps`,
    ),
  );
}

export function printEvent(p: Printer, e: InvestigationEvent): void {
  if (e.type === "step_started") p.line(dim(`  … ${clip(e.message, 160)}`));
}

import type { Investigation, InvestigationEvent } from "../domain/investigation.js";
import type { PlanUpdate } from "../domain/plan.js";
import type { Reflection } from "../domain/reflection.js";
import type { StepResult } from "../domain/results.js";
import type { ChatMessage } from "../ports/chat-sink.js";
import { type Block, context, fitBlocks, listSections, section } from "./block-kit.js";
import { joinMd, type Mrkdwn, md, untrusted } from "./mrkdwn.js";
import { plural, seconds } from "./presentation.js";
import { fallbackText } from "./render-text.js";

const inline = (raw: string, max: number): Mrkdwn => untrusted(raw, { max, inline: true });

function outcomeHeadline(result: StepResult): { emoji: string; text: string } {
  if (result.status === "failed") return { emoji: "❌", text: "failed" };
  if (result.outcome === "no_data") return { emoji: "⚪", text: "finished without data" };
  return { emoji: "✅", text: "done" };
}

/**
 * A step reply is a note in a thread a person scrolls through, not the record (Firestore and the
 * run's investigation.json keep every fact): its summary and facts are capped well below Slack's limits.
 */
const STEP_SUMMARY_CHARS = 800;
const STEP_FACTS_CHARS = 1_200;

/** A finished step: what it found, the key facts, how many tool calls and which failed. */
export function renderStepFinished(
  investigation: Investigation,
  event: InvestigationEvent,
  result: StepResult | undefined,
): ChatMessage {
  if (!result) return renderEventNote(investigation, event, "🔧");
  const step = investigation.plan?.steps.find((s) => s.id === result.stepId);
  const head = outcomeHeadline(result);
  const description = step ? md` — ${inline(step.description, 300)}` : md``;
  const blocks: Block[] = [
    section(md`${head.emoji} *Step ${inline(result.stepId, 40)} ${head.text}*${description}`),
    section(untrusted(result.summary || "(no summary)", { max: STEP_SUMMARY_CHARS })),
  ];
  if (result.facts.length > 0) {
    blocks.push(
      ...listSections(
        md`*Key facts*`,
        result.facts.map((f) => md`• ${inline(f, 300)}`),
        { maxSections: 1, maxChars: STEP_FACTS_CHARS, noun: "facts" },
      ),
    );
  }
  const failedCalls = result.toolCalls.filter((c) => !c.ok);
  if (result.error || failedCalls.length > 0) {
    const lines = failedCalls.map((c) => md`• ${inline(c.name, 64)}: ${inline(c.error ?? c.summary, 300)}`);
    if (result.error) lines.unshift(md`• step error: ${inline(result.error, 500)}`);
    blocks.push(...listSections(md`*Failures*`, lines, { maxSections: 1, noun: "failures" }));
  }
  const calls = plural(result.toolCalls.length, "tool call");
  const failed = failedCalls.length > 0 ? md` (${failedCalls.length} failed)` : md``;
  blocks.push(
    context([
      md`🔧 ${calls}${failed} · ${plural(result.iterations, "iteration")} · ${seconds(result.startedAt, result.finishedAt)} · ${plural(result.iocs.length, "IOC")}`,
    ]),
  );
  return {
    text: fallbackText(md`Step ${inline(result.stepId, 40)} ${head.text}: ${inline(result.summary, 200)}`),
    blocks: fitBlocks(blocks),
  };
}

function updateLine(update: PlanUpdate): Mrkdwn {
  switch (update.op) {
    case "add":
      return md`• add *${inline(update.step.id, 40)}*: ${inline(update.step.description, 300)}`;
    case "update":
      return md`• update *${inline(update.id, 40)}*${update.description ? md`: ${inline(update.description, 300)}` : md``}`;
    case "cancel":
      return md`• cancel *${inline(update.id, 40)}*: ${inline(update.reason, 300)}`;
  }
}

/** What the reflector learned and which plan changes policy let through or refused. */
export function renderReflection(
  investigation: Investigation,
  event: InvestigationEvent,
  reflection: Reflection | undefined,
): ChatMessage {
  if (!reflection) return renderEventNote(investigation, event, "🤔");
  const after = joinMd(
    reflection.afterSteps.map((s) => inline(s, 40)),
    ", ",
  );
  const achieved = reflection.achieved ? "objective achieved" : "objective not yet achieved";
  const blocks: Block[] = [
    section(md`🤔 *Reflection after wave ${reflection.wave}* (${after}) — ${achieved}`),
  ];
  if (reflection.insights.length > 0) {
    blocks.push(
      ...listSections(
        md`*Insights*`,
        reflection.insights.map((i) => md`• ${inline(i, 400)}`),
        { maxSections: 2, noun: "insights" },
      ),
    );
  }
  if (reflection.applied.length > 0) {
    blocks.push(
      ...listSections(md`*Plan changes applied*`, reflection.applied.map(updateLine), {
        maxSections: 2,
        noun: "changes",
      }),
    );
  }
  if (reflection.refused.length > 0) {
    const refused = reflection.refused.map(
      (r) => md`${updateLine(r.update)} — refused: ${inline(r.reason, 200)}`,
    );
    blocks.push(...listSections(md`*Plan changes refused*`, refused, { maxSections: 1, noun: "refusals" }));
  }
  blocks.push(context([md`Why: ${inline(reflection.rationale, 600)}`]));
  return {
    text: fallbackText(md`Reflection after wave ${reflection.wave}: ${achieved}`),
    blocks: fitBlocks(blocks),
  };
}

export function renderCompressed(investigation: Investigation, event: InvestigationEvent): ChatMessage {
  return renderEventNote(investigation, event, "🗜️", "Context compressed");
}

/** A one-line reply carrying only the event's own message, when nothing richer is stored. */
export function renderEventNote(
  _investigation: Investigation,
  event: InvestigationEvent,
  emoji: string,
  title?: string,
): ChatMessage {
  const prefix = title ? md`*${title}:* ` : md``;
  const text = md`${emoji} ${prefix}${untrusted(event.message || event.type, { max: 2_000 })}`;
  return { text: fallbackText(text), blocks: [context([text])] };
}

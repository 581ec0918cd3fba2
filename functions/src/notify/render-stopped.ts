import type { Investigation, InvestigationEvent } from "../domain/investigation.js";
import { mergeIocs } from "../domain/ioc.js";
import type { StepResult } from "../domain/results.js";
import { brainOf } from "../model/brain.js";
import { describeUsage } from "../model/cost.js";
import type { ChatMessage } from "../ports/chat-sink.js";
import { type Block, context, fitBlocks, header, listSections, section } from "./block-kit.js";
import { joinMd, type Mrkdwn, md, untrusted } from "./mrkdwn.js";
import { plural } from "./presentation.js";
import { iocLine } from "./render-conclusion.js";
import { findingFields, footer } from "./render-finding.js";
import { fallbackText } from "./render-text.js";

const inline = (raw: string, max: number): Mrkdwn => untrusted(raw, { max, inline: true });

function learnedLine(result: StepResult): Mrkdwn {
  const status = result.status === "failed" ? "failed" : result.outcome === "no_data" ? "no data" : "done";
  const head = md`• *${inline(result.stepId, 40)}* (${status}): ${inline(result.summary || "(no summary)", 400)}`;
  const facts = result.facts.slice(0, 3).map((f) => md`      ↳ ${inline(f, 250)}`);
  return joinMd([head, ...facts], "\n");
}

/**
 * needs_human and failed share a shape: why ferret stopped, what the finished steps found,
 * the IOCs seen so far and what was left undone, so a person can pick up from there.
 */
export function renderStopped(
  kind: "needs_human" | "failed",
  investigation: Investigation,
  event: InvestigationEvent,
  results: readonly StepResult[],
): ChatMessage {
  const title = kind === "needs_human" ? "🙋 Needs a human" : "💥 Investigation failed";
  const why =
    investigation.reason || event.message || (kind === "failed" ? "unknown error" : "no reason recorded");
  const category = inline(investigation.finding.category, 100);
  const blocks: Block[] = [
    header(md`${title} — ${category}`),
    findingFields(investigation.finding),
    section(md`*Why ferret stopped*\n${untrusted(why, { max: 1_500 })}`),
  ];
  const draft = kind === "needs_human" ? investigation.conclusion : undefined;
  if (draft) {
    // The concluder's view, for the person deciding; not applied to the finding.
    blocks.push(
      section(
        md`*Draft verdict (not applied)*: ${inline(draft.verdict, 20)} · ${String(Math.round(draft.confidence * 100))}%\n${untrusted(draft.summary, { max: 600 })}`,
      ),
    );
  }
  const ordered = [...results].sort((a, b) => a.finishedAt.localeCompare(b.finishedAt));
  if (ordered.length > 0) {
    blocks.push(
      ...listSections(md`*What was learned so far*`, ordered.map(learnedLine), {
        maxSections: 5,
        noun: "steps",
      }),
    );
  } else {
    blocks.push(section(md`*What was learned so far*\nNo step finished before ferret stopped.`));
  }
  const iocs = mergeIocs(...ordered.map((r) => r.iocs));
  if (iocs.length > 0) {
    blocks.push(
      ...listSections(md`*Indicators seen so far* (defanged, ${iocs.length})`, iocs.map(iocLine), {
        maxSections: 2,
        noun: "IOCs",
      }),
    );
  }
  const open = (investigation.plan?.steps ?? []).filter(
    (s) => s.status === "pending" || s.status === "running",
  );
  if (open.length > 0) {
    const lines = open.map((s) => md`• *${inline(s.id, 40)}*: ${inline(s.description, 300)}`);
    blocks.push(...listSections(md`*Not done*`, lines, { maxSections: 1, noun: "steps" }));
  }
  const c = investigation.counters;
  const usage = describeUsage(c.usage, { offline: brainOf(investigation).kind === "offline" });
  const tail = [
    context([
      md`${plural(c.stepsExecuted, "step")} executed · ${plural(c.waves, "wave")} · ${plural(c.revisions, "plan revision")} · ${usage}`,
    ]),
    footer(investigation),
  ];
  return {
    text: fallbackText(md`${title} — ${category}: ${inline(why, 300)}`),
    blocks: fitBlocks(blocks, tail),
  };
}

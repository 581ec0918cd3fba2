import type { ThreadAnswerBrief } from "../agent/briefs.js";
import { extractIocs, type Ioc, isPrivateOrReservedIpv4 } from "../domain/ioc.js";
import type { EvidenceItem, ThreadAnswer } from "../domain/thread-question.js";
import type { ToolCallRequest } from "../model/port.js";

/**
 * The offline model's answer to an analyst's question: no language understanding, only
 * matching. Indicators in the question (IPs, domains, URLs, hashes, emails) and its longer
 * words are matched against the stored evidence; the matching items are listed with their
 * refs as citations. An indicator the evidence never mentions is looked up once with
 * threat_intel_lookup when that tool is offered. The question is never executed or echoed:
 * it only chooses which stored evidence to show, so an instruction inside it changes nothing
 * but which items match.
 */

const MAX_ITEMS = 5;
const MAX_LOOKUPS = 20;
const ITEM_CHARS = 400;
const TITLE_CHARS = 120;
/** The answer schema's bound (domain/thread-question.ts), less room for the header line. */
const MAX_ANSWER_CHARS = 2_400;
const LOOKUP_TOOL = "threat_intel_lookup";

/** Words that say nothing about which evidence is meant. */
const STOPWORDS = new Set(
  (
    "about above after again also because been before being below between both could does doing during each " +
    "every from have having here into just know more most much only other over same should show some such tell " +
    "than that their them then there these they this those through under until very want were what when where " +
    "which while will with would your ferret please thanks thank investigation finding evidence anything " +
    "something"
  ).split(" "),
);

export type ThreadAnswerStep =
  | { kind: "calls"; calls: ToolCallRequest[] }
  | { kind: "answer"; answer: ThreadAnswer };

export function threadAnswerFor(brief: ThreadAnswerBrief): ThreadAnswerStep {
  const indicators = questionIndicators(brief.question);
  if (!brief.finalAnswerOnly && brief.toolCallsLeft > 0 && brief.tools.includes(LOOKUP_TOOL)) {
    const unseen = indicators.filter(
      (ioc) =>
        !(ioc.type === "ip" && isPrivateOrReservedIpv4(ioc.value)) &&
        !brief.evidence.some((item) => mentions(item, ioc.value)),
    );
    const lookups = unseen.slice(0, MAX_LOOKUPS).map((ioc) => ({ type: ioc.type, value: ioc.value }));
    const asked = brief.evidence.filter((e) => e.kind === "asked").length;
    if (lookups.length > 0) {
      return {
        kind: "calls",
        calls: [{ id: `ask-${asked + 1}`, name: LOOKUP_TOOL, args: { indicators: lookups } }],
      };
    }
  }
  return { kind: "answer", answer: answerFromEvidence(brief, indicators) };
}

function answerFromEvidence(brief: ThreadAnswerBrief, indicators: readonly Ioc[]): ThreadAnswer {
  const words = questionWords(brief.question);
  const scored = brief.evidence
    .map((item, order) => ({ item, order, score: score(item, indicators, words) }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, MAX_ITEMS);
  if (scored.length === 0) {
    const conclusion = brief.evidence.find((e) => e.kind === "conclusion");
    const fallback = conclusion ?? brief.evidence.find((e) => e.kind === "finding");
    const lead =
      "Nothing in this investigation's stored evidence matches the question's indicators or terms " +
      "(offline model: it matches, it does not interpret).";
    return fallback
      ? { answer: `${lead}\nClosest record — ${line(fallback)}`, citations: [fallback.ref] }
      : { answer: lead, citations: [] };
  }
  // Long step titles and texts could pass the answer schema's length: keep the best items that fit.
  const kept: typeof scored = [];
  let length = 80;
  for (const s of scored) {
    const size = line(s.item).length + 3;
    if (kept.length > 0 && length + size > MAX_ANSWER_CHARS) break;
    kept.push(s);
    length += size;
  }
  const lines = kept.map((s) => `• ${line(s.item)}`);
  return {
    answer: [
      `What this investigation recorded that matches the question (${kept.length} item${kept.length === 1 ? "" : "s"}):`,
      ...lines,
    ].join("\n"),
    citations: kept.map((s) => s.item.ref),
  };
}

function line(item: EvidenceItem): string {
  return `[${item.ref}] ${clip(item.title, TITLE_CHARS)}: ${clip(item.text, ITEM_CHARS)}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function score(item: EvidenceItem, indicators: readonly Ioc[], words: readonly string[]): number {
  const haystack = `${item.title} ${item.text}`.toLowerCase();
  const iocHits = indicators.filter((ioc) => mentions(item, ioc.value)).length;
  const wordHits = words.filter((w) => haystack.includes(w)).length;
  return iocHits * 3 + wordHits;
}

function mentions(item: EvidenceItem, value: string): boolean {
  const v = value.toLowerCase();
  return (
    item.iocs.some((i) => i.toLowerCase() === v) || `${item.title} ${item.text}`.toLowerCase().includes(v)
  );
}

function questionIndicators(question: string): Ioc[] {
  return extractIocs(question, { includePrivateIps: true });
}

function questionWords(question: string): string[] {
  const words = question.toLowerCase().match(/[a-z0-9_][a-z0-9_.:/-]{3,}/g) ?? [];
  return [
    ...new Set(words.map((w) => w.replace(/[.:/-]+$/, "")).filter((w) => w.length >= 4 && !STOPWORDS.has(w))),
  ];
}

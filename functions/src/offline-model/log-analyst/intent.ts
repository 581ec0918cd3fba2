import type { LogAnalystBrief } from "../../agent/briefs.js";
import type { Intent, IntentParams } from "../intents.js";
import { enrichIntent, kindFromWords, paramsFromText } from "../step-executor/step-intent.js";
import { decodeIntent, safeValues } from "../step-text.js";
import { subjectOf } from "../subject.js";

/**
 * What the main agent asked, as an intent the playbook machinery can run: the plan tail when
 * the request carries one (the offline step executor writes it), else keywords and the values
 * written in the request and its focus. Intel is not the analyst's business, so an intel
 * tail is read by its words instead. Missing values come from the finding.
 *
 * Window: the one sent with the request wins, then times written in the request, then the
 * finding family's own window around eventTime (the same one the planner would choose).
 */
export function intentForRequest(brief: LogAnalystBrief): Intent {
  const text = `${brief.request} ${brief.focus ?? ""}`;
  const decoded = decodeIntent(brief.request);
  const raw: Intent =
    decoded && decoded.kind !== "intel"
      ? decoded
      : {
          kind: kindFromWords(text, ["intel"]),
          params: { ...namedResources(text), ...paramsFromText(text), ...(decoded?.params ?? {}) },
        };
  // No earlier step results travel with a request: "near=prior" has nothing to be near.
  const { near: _near, ...params } = raw.params;
  const enriched = enrichIntent({ kind: raw.kind, params }, subjectOf(brief.finding), []);
  if (brief.windowSource !== "request") return enriched;
  return {
    kind: enriched.kind,
    params: { ...enriched.params, start: [brief.window.start], end: [brief.window.end] },
  };
}

/** Words that follow "VM"/"instance"/"bucket" in a question without being a name. */
const NOT_NAMES = new Set([
  "name",
  "names",
  "id",
  "ids",
  "logs",
  "log",
  "that",
  "the",
  "which",
  "is",
  "was",
  "and",
  "or",
]);

/**
 * VM and bucket names a question spells out ("VM web-7", "bucket exports-2024"): the
 * finding's own resource only fills in when the question names none, so a question about
 * another VM is answered about that VM.
 */
function namedResources(text: string): IntentParams {
  const pick = (re: RegExp) =>
    safeValues([...text.matchAll(re)].map((m) => m[1] ?? "").filter((v) => !NOT_NAMES.has(v.toLowerCase())));
  const instance = pick(/\b(?:vm|instance)\s+(?:named\s+)?([a-z][a-z0-9-]{0,62})\b/gi);
  const bucket = pick(/\bbucket\s+(?:named\s+)?(?:gs:\/\/)?([a-z0-9][a-z0-9._-]{2,62})\b/gi);
  return { ...(instance.length ? { instance } : {}), ...(bucket.length ? { bucket } : {}) };
}

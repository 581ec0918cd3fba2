import { modelFacts } from "./catalog.js";

/**
 * Warnings for configured Gemini ids that are retired, retiring or answered by another model,
 * from the catalog's dates (model/catalog.ts cites the pages). A retired id answers 404, and a
 * deprecated one is answered by its replacement at that model's price, so a warning at start-up,
 * in doctor and in the preflight beats finding out from the bill or at the first planner call.
 */

/** Warn this long before a shutdown. */
const NOTICE_DAYS = 60;
const DAY_MS = 86_400_000;

/** A sentence for the log and `doctor` when `model` is retired, retiring or routed; else undefined. */
export function lifecycleWarning(model: string, today: Date): string | undefined {
  const facts = modelFacts(model);
  // Unknown ids are refused apart (catalog.resolveModel).
  if (!facts) return undefined;
  const replacement = facts.replacement ?? "a current model";
  if (facts.shutdown) {
    const shutdown = Date.parse(`${facts.shutdown}T00:00:00Z`);
    const days = Math.ceil((shutdown - today.getTime()) / DAY_MS);
    if (days <= 0) {
      return `${model} was shut down on ${facts.shutdown} and answers 404; configure ${replacement} instead (investigations fall back to the offline model until then)`;
    }
    if (days <= NOTICE_DAYS) {
      return `${model} shuts down on ${facts.shutdown} (in ${days} days); plan the move to ${replacement}`;
    }
  }
  if (facts.routedTo) {
    return `${model} is deprecated: Google answers its requests with ${facts.routedTo}, billed at that model's rates; configure ${replacement}`;
  }
  return undefined;
}

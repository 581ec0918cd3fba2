import { extractIocs, type Ioc, iocKey, mergeIocs } from "../../domain/ioc.js";
import type { Message } from "../../model/port.js";

/**
 * IAM members and workload-identity principals as Cloud Audit Logs and IAM policies write
 * them ("serviceAccount:ci@p.iam.gserviceaccount.com", "principal://iam.googleapis.com/…").
 * extractIocs finds the e-mail inside; the member string says which kind of identity it
 * is, which the summary must not lose either.
 */
const PRINCIPAL =
  /(?<![\w:])(?:deleted:)?(?:serviceAccount|user|group|domain|principal|principalSet):(?:\/\/)?[^\s"'<>`,;()[\]{}]+/g;

/**
 * Every IOC in a list of messages: text, tool-call arguments and tool output alike.
 * Private addresses count here (lateral movement and metadata-server access are
 * evidence), unlike in runbook seeding.
 */
export function historyIocs(messages: readonly Message[]): Ioc[] {
  const text = messages.flatMap((m) => stringLeaves(m)).join("\n");
  return textIocs(text);
}

export function textIocs(text: string): Ioc[] {
  const principals: Ioc[] = [...new Set(text.match(PRINCIPAL) ?? [])].map((value) => ({
    type: "principal",
    value: value.replace(/[.:]+$/, ""),
  }));
  return mergeIocs(extractIocs(text, { includePrivateIps: true }), principals);
}

/** The IOCs of `required` that extraction does not find again in `result`. */
export function missingIocs(required: readonly Ioc[], result: readonly Message[]): Ioc[] {
  const found = new Set(historyIocs(result).map(iocKey));
  return required.filter((ioc) => !found.has(iocKey(ioc)));
}

/**
 * String values only: a JSON-escaped dump would glue "\n" to the next word and hide a URL
 * from the word-boundary patterns.
 */
function stringLeaves(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringLeaves);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(stringLeaves);
  return [];
}

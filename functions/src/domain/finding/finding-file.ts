import { InvalidInputError } from "../errors.js";
import { isEtdLogEntry } from "./etd-log-entry.js";

/**
 * The one reader of "a file of findings", used by `ferret inspect` and `ferret investigate`:
 * it splits whatever a user saved into single findings, each still in its own shape (the
 * per-finding shapes are read by parseNotification: notification, ListFindings result, export
 * row, bare finding). What it accepts, outermost first:
 * - JSON Lines (one document per line, as a BigQuery or Cloud Storage export writes them);
 * - a JSON array of any of the below (`gcloud scc findings list --format=json` prints an
 *   array of ListFindings results);
 * - a ListFindings response, v1 or v2 (`{listFindingsResults: [{finding, resource,
 *   stateChange}], readTime, totalSize}`), including an empty one;
 * - `{findings: [...]}`, a list some tools wrap findings in (a continuous-export row has
 *   `findings` as an object, not a list, and is a single finding);
 * - a Pub/Sub push body (`{message: {data: base64}, subscription}`), a pull response
 *   (`{receivedMessages: [{message: {data}}]}`) or a stored PubsubMessage (`{data, attributes,
 *   messageId, publishTime}`), the data decoded whether it is base64, JSON text or an object;
 * - a Cloud Logging entry of an SCC finding (`jsonPayload` holding the finding), or an Event
 *   Threat Detection finding as Cloud Logging stores it (etd-log-entry.ts);
 * - a single finding in any of its shapes.
 * Anything else is refused with what was expected.
 */

export type FindingItemShape =
  | "notification"
  | "list-findings-result"
  | "export-row"
  | "bare-finding"
  | "pubsub-message"
  | "log-entry";

export interface FindingItem {
  /** One finding, in the shape it came in (parseNotification reads it). */
  payload: unknown;
  /** Where in the file it was: `listFindingsResults[2]`, `line 4`, `[0].finding`… */
  origin: string;
  shape: FindingItemShape;
}

export interface FindingFile {
  items: FindingItem[];
  /** The file's outer shape, for messages: "a ListFindings response", "JSON Lines"… */
  container: string;
}

export const EXPECTED_SHAPES =
  "a Pub/Sub notification {notificationConfigName, finding, resource}, a ListFindings response " +
  "{listFindingsResults: [{finding, resource}]} (v1 or v2), `gcloud scc findings list --format=json` " +
  "output (an array), a continuous-export or BigQuery export row {finding|findings, resource, " +
  "sourceProperties}, a bare Finding {name, category, eventTime, …}, a Pub/Sub push or pull body or stored message, " +
  "a Cloud Logging entry of a finding (an SCC export, or Event Threat Detection's threatdetection.googleapis.com/detection log), " +
  "or JSON Lines of these";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (!isRecord(value)) return value === null ? "null" : `a ${typeof value}`;
  const keys = Object.keys(value);
  return keys.length === 0
    ? "an empty object"
    : `an object with keys ${keys.slice(0, 8).join(", ")}${keys.length > 8 ? ", …" : ""}`;
}

/** The shape of one finding, or undefined when the object is not one. */
export function singleShape(value: Record<string, unknown>): FindingItemShape | undefined {
  if (isRecord(value.finding)) {
    if ("notificationConfigName" in value) return "notification";
    if ("source_id" in value || "finding_id" in value || "sourceProperties" in value) return "export-row";
    return "list-findings-result";
  }
  if (isRecord(value.findings)) return "export-row";
  if (typeof value.name === "string" && typeof value.category === "string") return "bare-finding";
  return undefined;
}

/**
 * A message's data as whatever stored it left it: base64 as Pub/Sub sends it, the decoded JSON
 * text, or the decoded object itself (SIEMs and notification bridges store the message with its
 * data already parsed). Only the wire form is base64; the others are the same data, decoded.
 */
function decodeData(data: unknown, origin: string): unknown {
  if (isRecord(data) || Array.isArray(data)) return data;
  if (typeof data !== "string")
    throw new InvalidInputError(
      `${origin}: a Pub/Sub message whose data is ${describe(data)}; expected base64 text, JSON text or an object`,
    );
  const trimmed = data.trim();
  const base64 = !/^[[{]/.test(trimmed);
  const text = base64 ? Buffer.from(data, "base64").toString("utf8") : trimmed;
  try {
    return JSON.parse(text);
  } catch (error) {
    // The decoded bytes of broken base64 are not worth showing; what is wrong with it is.
    const cut =
      trimmed.length % 4 !== 0
        ? `; its length, ${trimmed.length}, is not a multiple of 4, so characters were lost or added`
        : "";
    const why = base64
      ? `base64 text whose decoded bytes are not JSON${cut}`
      : `JSON text that does not parse (${(error as Error).message})`;
    throw new InvalidInputError(`${origin}: the Pub/Sub message data is not JSON: ${why}`);
  }
}

/**
 * A PubsubMessage stored on its own, outside a push body (https://cloud.google.com/pubsub/docs/reference/rest/v1/PubsubMessage:
 * data, attributes, messageId, publishTime, orderingKey), as pipelines that archive messages
 * keep them, or as a Cloud Functions background event hands it to the function (the same fields
 * plus "@type", https://cloud.google.com/functions/docs/calling/pubsub#event_structure);
 * snake_case spellings are how Python clients and several SIEMs write the same fields. An object
 * with `data` and nothing but these fields is a message, however few of them it kept (with
 * `data` alone, only when it is text).
 */
const MESSAGE_FIELDS = new Set([
  "data",
  "attributes",
  "messageId",
  "message_id",
  "publishTime",
  "publish_time",
  "orderingKey",
  "ordering_key",
  "@type",
]);

function isStoredMessage(value: Record<string, unknown>): boolean {
  const keys = Object.keys(value);
  if (!("data" in value) || !keys.every((key) => MESSAGE_FIELDS.has(key))) return false;
  // `data` alone is a message only when it is the wire form (text); `{data: [...]}` is some other file.
  return keys.length > 1 || typeof value.data === "string";
}

const MAX_DEPTH = 4;

function collect(value: unknown, origin: string, out: FindingItem[], depth: number): void {
  const at = origin || "the file";
  if (depth > MAX_DEPTH)
    throw new InvalidInputError(`${at}: findings nested too deep; expected ${EXPECTED_SHAPES}`);
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      collect(item, `${origin}[${i}]`, out, depth + 1);
    });
    return;
  }
  if (!isRecord(value))
    throw new InvalidInputError(`${at} is ${describe(value)}; expected ${EXPECTED_SHAPES}`);
  if (Array.isArray(value.listFindingsResults)) {
    collect(value.listFindingsResults, `${origin}${origin ? "." : ""}listFindingsResults`, out, depth + 1);
    return;
  }
  if (Array.isArray(value.findings)) {
    collect(value.findings, `${origin}${origin ? "." : ""}findings`, out, depth + 1);
    return;
  }
  if (Array.isArray(value.receivedMessages)) {
    value.receivedMessages.forEach((m, i) => {
      const where = `${origin}receivedMessages[${i}]`;
      const message = isRecord(m) ? m.message : undefined;
      const before = out.length;
      collect(decodeData(isRecord(message) ? message.data : undefined, where), where, out, depth + 1);
      for (const item of out.slice(before)) item.shape = "pubsub-message";
    });
    return;
  }
  const message = isRecord(value.message) && "data" in value.message ? value.message : undefined;
  if (message || isStoredMessage(value)) {
    const where = `${origin}${origin ? "." : ""}${message ? "message.data" : "data"}`;
    const decoded = decodeData((message ?? value).data, where);
    const before = out.length;
    collect(decoded, where, out, depth + 1);
    for (const item of out.slice(before)) item.shape = "pubsub-message";
    return;
  }
  if (
    isRecord(value.jsonPayload) &&
    (isRecord(value.jsonPayload.finding) || "category" in value.jsonPayload)
  ) {
    const before = out.length;
    collect(value.jsonPayload, `${origin}${origin ? "." : ""}jsonPayload`, out, depth + 1);
    for (const item of out.slice(before)) item.shape = "log-entry";
    return;
  }
  if (isEtdLogEntry(value)) {
    // The whole entry is the item: unwrapEnvelope reads it by ETD's layout (etd-log-entry.ts).
    out.push({ payload: value, origin: origin || "the file", shape: "log-entry" });
    return;
  }
  const shape = singleShape(value);
  if (!shape) {
    const hint =
      "finding" in value ? `its "finding" is ${describe(value.finding)}` : `it is ${describe(value)}`;
    throw new InvalidInputError(`${at} holds no SCC finding: ${hint}; expected ${EXPECTED_SHAPES}`);
  }
  out.push({ payload: value, origin: origin || "the file", shape });
}

function containerOf(doc: unknown, lines: boolean): string {
  if (lines) return "JSON Lines";
  if (Array.isArray(doc)) return "a JSON array";
  if (isRecord(doc) && Array.isArray(doc.listFindingsResults)) return "a ListFindings response";
  if (isRecord(doc) && Array.isArray(doc.receivedMessages)) return "a Pub/Sub pull response";
  return "a single document";
}

/** The findings of one parsed JSON document. */
export function readFindingsDocument(doc: unknown): FindingFile {
  const items: FindingItem[] = [];
  collect(doc, "", items, 0);
  return { items, container: containerOf(doc, false) };
}

/** The findings of a file's text: one JSON document, or JSON Lines. */
export function readFindingsText(text: string, name = "the file"): FindingFile {
  const trimmed = text.replace(/^\uFEFF/, "").trim();
  if (trimmed === "") throw new InvalidInputError(`${name} is empty; expected ${EXPECTED_SHAPES}`);
  let whole: unknown;
  let wholeError: Error | undefined;
  try {
    whole = JSON.parse(trimmed);
  } catch (error) {
    wholeError = error as Error;
  }
  if (wholeError === undefined) return readFindingsDocument(whole);
  const lines = trimmed.split(/\r?\n/);
  if (lines.length < 2) throw new InvalidInputError(`${name} is not valid JSON: ${wholeError.message}`);
  const items: FindingItem[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    let doc: unknown;
    try {
      doc = JSON.parse(line);
    } catch (error) {
      throw new InvalidInputError(
        `${name} is neither one JSON document (${wholeError.message}) nor JSON Lines (line ${i + 1}: ${(error as Error).message})`,
      );
    }
    collect(doc, `line ${i + 1}`, items, 1);
  });
  return { items, container: containerOf(undefined, true) };
}

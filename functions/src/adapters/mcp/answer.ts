import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { type JsonObject, JsonObjectSchema, jsonBoundsProblem } from "../../domain/json.js";
import type { ToolOutput } from "../../tools/port.js";

/*
 * What ferret reads of an MCP CallToolResult. The SDK has checked the answer against the
 * protocol already; these schemas are ferret's own boundary, read part by part, so one part
 * ferret cannot read is counted as left out instead of failing the whole answer.
 */
const TextPart = z.object({ type: z.literal("text"), text: z.string() });
const media = <T extends "image" | "audio">(type: T) =>
  z.object({ type: z.literal(type), mimeType: z.string(), data: z.string() });
const LinkPart = z.object({
  type: z.literal("resource_link"),
  uri: z.string(),
  name: z.string(),
  mimeType: z.string().optional(),
});
const Contents = z.object({ uri: z.string(), mimeType: z.string().optional() });
const EmbeddedPart = z.object({
  type: z.literal("resource"),
  resource: z.union([Contents.extend({ text: z.string() }), Contents.extend({ blob: z.string() })]),
});
const PartSchema = z.union([TextPart, media("image"), media("audio"), LinkPart, EmbeddedPart]);
const AnswerSchema = z.object({
  content: z.array(z.unknown()).optional(),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
});

/** A uri, name or MIME type longer than this labels nothing a person could check: left out. */
const MAX_LABEL = 1_024;
/** Left-out parts listed one by one in the data; the rest are only counted. */
const MAX_LISTED = 20;

/** What the output mentions as left out; the words are ferret's, never the server's. */
const LEFT_OUT = {
  image: "image(s)",
  audio: "audio part(s)",
  blob: "binary resource(s)",
  unreadable: "unreadable part(s)",
  repeated: "text part(s) repeating the structured content",
  unbounded: "structured content object(s) past ferret's JSON bounds",
} as const;
type LeftOut = keyof typeof LEFT_OUT;

function cut(text: string, budget: number): { text: string; cut: boolean } {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes <= budget) return { text, cut: false };
  // Slice by characters, then trim until the UTF-8 size fits (multi-byte safe).
  let kept = text.slice(0, Math.max(0, budget));
  while (Buffer.byteLength(kept, "utf8") > budget) kept = kept.slice(0, -1);
  return { text: kept, cut: true };
}

/** The bytes the answer may still add to the output: every string kept is charged. */
class Budget {
  truncated = false;
  constructor(public left: number) {}

  /** Text, cut to what is left. */
  text(text: string): string {
    const kept = cut(text, Math.max(0, this.left));
    this.left -= Buffer.byteLength(kept.text, "utf8");
    this.truncated ||= kept.cut;
    return kept.text;
  }

  /**
   * Labels (uri, name, MIME type) are kept whole or not at all: a cut uri names another
   * resource. Undefined when they do not fit; the answer is then marked cut.
   */
  labels(labels: Record<string, string | undefined>): JsonObject | undefined {
    const kept: JsonObject = {};
    let bytes = 0;
    for (const [key, value] of Object.entries(labels)) {
      if (value === undefined) continue;
      kept[key] = value;
      bytes += Buffer.byteLength(value, "utf8");
      if (Buffer.byteLength(value, "utf8") > MAX_LABEL) bytes = Number.POSITIVE_INFINITY;
    }
    if (bytes > this.left) {
      this.truncated = true;
      return undefined;
    }
    this.left -= bytes;
    return kept;
  }
}

/** Servers SHOULD repeat structured content as JSON text; the copy would only spend the cap. */
function repeats(text: string, structured: JsonObject | undefined): boolean {
  if (structured === undefined || !text.trimStart().startsWith("{")) return false;
  try {
    return isDeepStrictEqual(JSON.parse(text), structured);
  } catch {
    return false;
  }
}

function readStructured(value: unknown): JsonObject | "unbounded" | undefined {
  if (value === undefined) return undefined;
  // The iterative bounds check first: zod's recursive parse is what deep nesting would overflow.
  if (jsonBoundsProblem(value) !== undefined) return "unbounded";
  const parsed = JsonObjectSchema.safeParse(value);
  return parsed.success ? parsed.data : "unbounded";
}

/**
 * An MCP server's answer as a tool output. Everything the server wrote is untrusted data:
 * it travels only in `data`, labelled with its source and capped at `maxBytes`; the summary
 * later steps and people read is written here, from counts, never from the server's text.
 *
 * Text parts and the text of embedded resources are kept (a resource with its uri); resource
 * links keep their uri, name and MIME type, and ferret never follows them (that would be reach
 * the allowlist did not grant). Images, audio and binary resources are left out, listed with
 * their MIME type and size.
 */
export function toToolOutput(
  qualified: string,
  server: string,
  result: unknown,
  maxBytes: number,
): ToolOutput {
  const answer = AnswerSchema.parse(result);
  const budget = new Budget(maxBytes);
  const read = readStructured(answer.structuredContent);
  const structuredIn = read === "unbounded" ? undefined : read;
  const text: string[] = [];
  const resources: JsonObject[] = [];
  const links: JsonObject[] = [];
  const leftOut: JsonObject[] = [];
  const counts = new Map<LeftOut, number>();
  const leave = (kind: LeftOut, mimeType?: string, base64?: string) => {
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    if (kind === "repeated" || kind === "unbounded" || leftOut.length >= MAX_LISTED) return;
    const labels = budget.labels({ mimeType });
    leftOut.push({
      type: kind,
      ...(labels ?? {}),
      ...(base64 !== undefined ? { bytes: Buffer.byteLength(base64, "base64") } : {}),
    });
  };
  if (read === "unbounded") leave("unbounded");

  for (const raw of answer.content ?? []) {
    const parsed = PartSchema.safeParse(raw);
    if (!parsed.success) {
      leave("unreadable");
      continue;
    }
    const part = parsed.data;
    if (part.type === "text") {
      if (repeats(part.text, structuredIn)) leave("repeated");
      else {
        const shown = budget.text(part.text);
        if (shown.length > 0) text.push(shown);
      }
    } else if (part.type === "image" || part.type === "audio") {
      leave(part.type, part.mimeType, part.data);
    } else if (part.type === "resource_link") {
      const labels = budget.labels({ uri: part.uri, name: part.name, mimeType: part.mimeType });
      if (labels) links.push(labels);
    } else if ("text" in part.resource) {
      const labels = budget.labels({ uri: part.resource.uri, mimeType: part.resource.mimeType });
      if (labels) resources.push({ ...labels, text: budget.text(part.resource.text) });
    } else {
      leave("blob", part.resource.mimeType, part.resource.blob);
    }
  }

  let structured: JsonObject | undefined;
  if (structuredIn !== undefined) {
    const json = JSON.stringify(structuredIn);
    if (Buffer.byteLength(json, "utf8") <= budget.left) {
      structured = structuredIn;
      budget.left -= Buffer.byteLength(json, "utf8");
    } else structured = { truncated: true, preview: budget.text(json) };
    budget.truncated ||= structured !== structuredIn;
  }

  const bytes = maxBytes - Math.max(0, budget.left);
  const failed = answer.isError === true;
  const kept = [`${text.length} text part(s)`];
  if (resources.length > 0) kept.push(`${resources.length} embedded text resource(s)`);
  if (links.length > 0) kept.push(`${links.length} resource link(s)`);
  const left = [...counts].map(([kind, n]) => `${n} ${LEFT_OUT[kind]}`);
  return {
    ok: !failed,
    summary:
      `${qualified} ${failed ? "reported an error" : "answered"}: ${kept.join(", ")}` +
      `${structured !== undefined ? " and structured content" : ""}, ${bytes} bytes` +
      `${budget.truncated ? ` (cut at ${maxBytes} bytes)` : ""}${left.length ? `; left out: ${left.join(", ")}` : ""}`,
    data: {
      source: `MCP server ${server}`,
      untrusted: true,
      text,
      ...(resources.length > 0 ? { resources } : {}),
      ...(links.length > 0 ? { links } : {}),
      ...(structured !== undefined ? { structured } : {}),
      ...(leftOut.length > 0 ? { leftOut } : {}),
      ...(budget.truncated ? { truncated: true } : {}),
    },
  };
}

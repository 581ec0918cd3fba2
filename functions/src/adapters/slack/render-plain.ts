import type { JsonObject, JsonValue } from "../../domain/json.js";

/**
 * Block Kit back to readable terminal text: the same blocks Slack would get, so running
 * without a token shows exactly what a security engineer would read.
 */

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function textOf(value: JsonValue | undefined): string {
  return isObject(value) && typeof value.text === "string" ? value.text : "";
}

/** mrkdwn → plain: links become "label (url)", bold markers go, entities are decoded. */
export function mrkdwnToPlain(text: string): string {
  return (
    text
      .replace(/<(https?:\/\/[^|>]+)\|([^>]+)>/g, "$2 ($1)")
      .replace(/(^|[\s(])\*([^*\n]+)\*(?=$|[\s).,:;!?])/gm, "$1$2")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&")
      // Blocks come from our renderers, but a terminal must never receive escape sequences.
      .replace(/\p{Cc}/gu, (c) => (c === "\n" ? c : ""))
  );
}

function fieldLine(text: string): string {
  const [first = "", ...rest] = mrkdwnToPlain(text).split("\n");
  return rest.length > 0 ? `${first}: ${rest.join(" ")}` : first;
}

export function blockToLines(block: JsonObject): string[] {
  switch (block.type) {
    case "header": {
      const t = mrkdwnToPlain(textOf(block.text));
      return [t, "═".repeat(Math.min(60, Math.max(8, [...t].length)))];
    }
    case "section": {
      const lines = textOf(block.text) ? mrkdwnToPlain(textOf(block.text)).split("\n") : [];
      const fields = Array.isArray(block.fields) ? block.fields : [];
      return [...lines, ...fields.map((f) => fieldLine(textOf(f)))];
    }
    case "context": {
      const elements = Array.isArray(block.elements) ? block.elements : [];
      return [elements.map((e) => mrkdwnToPlain(textOf(e))).join("  ·  ")];
    }
    case "actions": {
      const elements = Array.isArray(block.elements) ? block.elements : [];
      return [
        elements.map((e) => `[ ${mrkdwnToPlain(textOf(isObject(e) ? e.text : undefined))} ]`).join(" "),
      ];
    }
    case "divider":
      return ["─".repeat(40)];
    default:
      return [`[${String(block.type)} block]`];
  }
}

export function blocksToPlain(blocks: readonly JsonObject[]): string[] {
  return blocks.flatMap(blockToLines);
}

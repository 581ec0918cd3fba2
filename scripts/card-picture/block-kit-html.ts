import { toHTML } from "slack-markdown";
import type { JsonObject, JsonValue } from "../../functions/src/domain/json.js";

/**
 * A Slack message's Block Kit as an HTML page laid out like Slack's message view, for the
 * docs' picture of the verdict card (docs/images/). Only the block types ferret posts
 * (header, section with text or fields, context, actions, divider); mrkdwn goes through
 * slack-markdown, which escapes everything it does not turn into markup.
 */

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function textOf(value: JsonValue | undefined): string {
  return isObject(value) && typeof value.text === "string" ? value.text : "";
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * Slack's mrkdwn carries `&amp;`, `&lt;`, `&gt;` for the literal characters; slack-markdown
 * escapes the `&` again, so its entities are mapped back to the HTML ones (still escaped).
 */
export function mrkdwnHtml(text: string): string {
  const html = toHTML(text, {
    hrefTarget: "_blank",
    noExtraEmojiSpanTags: true,
    slackCallbacks: { user: ({ id }) => `@${id}` },
  });
  return html.replace(/&amp;(lt|gt|amp);/g, "&$1;");
}

function blockHtml(block: JsonObject): string {
  switch (block.type) {
    case "header":
      // plain_text: Slack shows it as it is (its entities decoded), never as markup.
      return `<div class="header">${escapeHtml(textOf(block.text).replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"))}</div>`;
    case "section": {
      const text = textOf(block.text);
      const fields = Array.isArray(block.fields) ? block.fields : [];
      return [
        `<div class="section">`,
        text ? `<div class="text">${mrkdwnHtml(text)}</div>` : "",
        fields.length
          ? `<div class="fields">${fields.map((f) => `<div class="field">${mrkdwnHtml(textOf(f))}</div>`).join("")}</div>`
          : "",
        `</div>`,
      ].join("");
    }
    case "context": {
      const elements = Array.isArray(block.elements) ? block.elements : [];
      return `<div class="context">${elements.map((e) => `<span>${mrkdwnHtml(textOf(e))}</span>`).join("")}</div>`;
    }
    case "actions": {
      const elements = (Array.isArray(block.elements) ? block.elements : []).filter(isObject);
      const buttons = elements.map((e) => {
        const style = typeof e.style === "string" ? ` ${escapeHtml(e.style)}` : "";
        return `<span class="button${style}">${escapeHtml(textOf(e.text))}</span>`;
      });
      return `<div class="actions">${buttons.join("")}</div>`;
    }
    case "divider":
      return `<hr>`;
    default:
      return `<div class="context">[${escapeHtml(String(block.type))} block]</div>`;
  }
}

const STYLE = `
body { margin: 0; padding: 16px; background: #fff; font: 15px/1.47 Twemoji, Lato, "DejaVu Sans", system-ui, sans-serif; color: #1d1c1d; }
.message { display: flex; gap: 10px; max-width: 760px; }
.avatar { width: 36px; height: 36px; border-radius: 6px; background: #6b4a2b; color: #fff; font-weight: 700; display: flex; align-items: center; justify-content: center; flex: none; }
.name { font-weight: 900; } .app { font-size: 10px; background: #e8e8e8; color: #616061; padding: 1px 3px; border-radius: 2px; margin-left: 4px; vertical-align: 2px; } .time { color: #616061; font-size: 12px; margin-left: 6px; }
.header { font-size: 18px; font-weight: 900; margin: 6px 0 4px; }
.section { margin: 6px 0; }
.fields { display: grid; grid-template-columns: 1fr 1fr; gap: 8px 16px; margin-top: 6px; }
.field, .text { overflow-wrap: anywhere; }
.context { color: #616061; font-size: 12.5px; margin: 6px 0; display: flex; flex-wrap: wrap; gap: 4px 12px; overflow-wrap: anywhere; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 10px 0 6px; }
.button { border: 1px solid #bbb; border-radius: 4px; padding: 3px 12px; font-weight: 700; font-size: 14px; }
.button.primary { background: #007a5a; border-color: #007a5a; color: #fff; }
.button.danger { color: #e01e5a; border-color: #e01e5a; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; background: #f6f6f6; border: 1px solid #ddd; border-radius: 3px; padding: 0 3px; color: #e01e5a; }
a { color: #1264a3; text-decoration: none; }
hr { border: none; border-top: 1px solid #ddd; }
`;

/**
 * The whole page: one bot message holding the blocks. `fontCss` is ours (the emoji font's
 * @font-face rule), never message content.
 */
export function messagePage(
  blocks: readonly JsonObject[],
  options: { bot: string; time: string; fontCss?: string },
): string {
  return [
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><style>${options.fontCss ?? ""}${STYLE}</style></head><body>`,
    `<div class="message"><div class="avatar">f</div><div class="body">`,
    `<div><span class="name">${escapeHtml(options.bot)}</span><span class="app">APP</span><span class="time">${escapeHtml(options.time)}</span></div>`,
    ...blocks.map(blockHtml),
    `</div></div></body></html>`,
  ].join("\n");
}

import type { RecordedRequest } from "../../../helpers/slack-receiver.js";

/**
 * Scans what actually reached the Slack Web API for control syntax an attacker could have
 * smuggled in through finding fields, log rows, intel or model output. Slack acts on
 * `<!channel>`/`<!here>`/`<!subteam^…>` (broadcasts), `<@U…>` (user mentions), `<#C…>`
 * (channel links), `<url|label>` (links with a disguised label) and bare URLs (auto-linked).
 * ferret's own SCC console link is the one `<…|…>` it emits on purpose; it is removed first.
 */
const OUR_CONSOLE_LINK =
  /<https:\/\/console\.cloud\.google\.com\/security\/command-center\/findings\?[A-Za-z0-9=&%._~-]+\|[^<>|]+>/g;

export interface InjectedSyntax {
  /** Which rule matched: broadcast, user_mention, channel_link, link, bare_url, raw_angle. */
  kind: string;
  match: string;
  /** chat.postMessage field the match was found in, e.g. blocks[3].text.text. */
  where: string;
}

const RULES: Array<{ kind: string; re: RegExp }> = [
  { kind: "broadcast", re: /<!(?:channel|here|everyone|subteam\^)[^>]*>?/gi },
  { kind: "user_mention", re: /<@[A-Z0-9]+[^>]*>?/gi },
  { kind: "channel_link", re: /<#[A-Z0-9]+[^>]*>?/gi },
  { kind: "link", re: /<(?:https?|mailto|ftp):[^>]*>?/gi },
  { kind: "labelled_link", re: /<[^<>\s]+\|[^<>]*>/g },
  { kind: "bare_url", re: /\b(?:https?|ftp):\/\/[^\s<>"]+/gi },
  { kind: "bare_broadcast", re: /(?<![[\w])@(?:channel|here|everyone)\b/gi },
];

function strings(value: unknown, path: string, out: Array<{ where: string; text: string }>): void {
  if (typeof value === "string") out.push({ where: path, text: value });
  else if (Array.isArray(value)) {
    value.forEach((v, i) => {
      strings(v, `${path}[${i}]`, out);
    });
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) strings(v, path ? `${path}.${k}` : k, out);
  }
}

/** What Slack renders from a message: its text, blocks and attachments. */
export interface SlackPayload {
  text?: unknown;
  blocks?: unknown;
  attachments?: unknown;
}

/** Every injected control sequence in the messages' text, blocks and attachments. */
export function injectedSyntaxIn(messages: readonly SlackPayload[]): InjectedSyntax[] {
  const found: InjectedSyntax[] = [];
  for (const message of messages) {
    const fields: Array<{ where: string; text: string }> = [];
    strings({ text: message.text, blocks: message.blocks, attachments: message.attachments }, "", fields);
    for (const { where, text } of fields) {
      const cleaned = text.replace(OUR_CONSOLE_LINK, "");
      for (const { kind, re } of RULES) {
        for (const m of cleaned.matchAll(re)) found.push({ kind, match: m[0].slice(0, 120), where });
      }
    }
  }
  return found;
}

/** The same scan over what the local Slack Web API recorded. */
export function injectedSyntax(posts: readonly RecordedRequest[]): InjectedSyntax[] {
  return injectedSyntaxIn(posts.map((p) => p.args));
}

import assert from "node:assert/strict";

/** Strings an attacker can put into a finding, a log row, intel or model output. */
export const HOSTILE: readonly string[] = [
  "<!channel>",
  "<!here|here>",
  "<!everyone> wake up",
  "<@U123ABC> please approve",
  "<#C024BE7LR|security>",
  "<!subteam^S012345|@security-oncall>",
  "<https://evil.example.com|docs>",
  "<http://x|click>",
  "<https://evil.example.com>",
  "<mailto:attacker@evil.example.com|security team>",
  "<!date^1392734382^{date}|Feb 18>",
  "@here please look",
  "ping @channel and @everyone now",
  "[click me](https://evil.example.com/login)",
  "<\u200B!channel>",
  "\u200B<\u200B!\u200Bhere\u200B>",
  "<\uFEFF@U999>",
  "&lt;!channel&gt; pre-escaped",
  "<<!channel>>",
  "\u202Egnp.exe",
  "\u001b[31mred terminal\u001b[0m",
  "visit http://169.254.169.254/latest/meta-data",
  "mail user@evil.example.com",
  `${"<!channel> ".repeat(800)}tail`,
  "x".repeat(20_000),
  "*bold* _it_ ~strike~ ```code``` > quote",
];

const SCC_LINK =
  /<https:\/\/console\.cloud\.google\.com\/security\/command-center\/findings\?[A-Za-z0-9=&%._-]+\|[^<>|]+>/g;

/**
 * No Slack control syntax may survive: no `<`/`>` except ferret's own console link, no bare
 * broadcast mention, no clickable URL or email, no invisible or control characters.
 */
export function assertInert(text: string, where: string): void {
  const withoutOurLink = text.replace(SCC_LINK, "");
  assert.doesNotMatch(
    withoutOurLink,
    /[<>]/,
    `${where}: raw < or > in ${JSON.stringify(text.slice(0, 200))}`,
  );
  assert.doesNotMatch(
    withoutOurLink,
    /(?<!\[)@(here|channel|everyone)\b/i,
    `${where}: broadcast mention survived`,
  );
  assert.doesNotMatch(withoutOurLink, /\b(https?|ftps?):\/\//i, `${where}: clickable URL survived`);
  assert.doesNotMatch(
    withoutOurLink,
    /[a-z0-9._%+-]+@[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}/i,
    `${where}: email survived`,
  );
  assert.doesNotMatch(
    text,
    /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\uFEFF]/,
    `${where}: invisible character`,
  );
  const control = [...text].find((ch) => ch !== "\n" && /\p{Cc}/u.test(ch));
  assert.equal(control, undefined, `${where}: control character U+${control?.codePointAt(0)?.toString(16)}`);
}

/**
 * The docs' picture of the verdict card: the thread root a demo run posted, rendered as
 * Slack lays it out and screenshotted in the headless Chromium the browser tests use.
 *
 *   npm run demo
 *   npx tsx scripts/render-card.ts .ferret/runs/<time> [docs/images/verdict-card.png]
 *
 * It reads the run's recorded Slack Web API calls (slack-messages.jsonl) and takes the
 * first chat.update that carries the card's buttons: the verdict card before anyone clicked.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { chromium } from "playwright-core";
import type { JsonObject } from "../functions/src/domain/json.js";
import { CHROMIUM_ARGS, chromiumExecutable } from "../test/helpers/chromium.js";
import { messagePage } from "./card-picture/block-kit-html.js";

/** The page's made-up origin; its routes answer from memory and node_modules. */
const ORIGIN = "https://card.ferret.invalid";

interface RecordedCall {
  method: string;
  args: { blocks?: JsonObject[] };
}

/** The verdict card as first posted: the first root update that has the card's buttons. */
export function firstCard(calls: readonly RecordedCall[]): JsonObject[] | undefined {
  return calls.find(
    (c) => c.method === "chat.update" && (c.args.blocks ?? []).some((b) => b.type === "actions"),
  )?.args.blocks;
}

async function main(argv: readonly string[]): Promise<number> {
  const [runDir, out = "docs/images/verdict-card.png"] = argv;
  if (!runDir) {
    process.stderr.write("usage: tsx scripts/render-card.ts <.ferret/runs/<time>> [out.png]\n");
    return 2;
  }
  const calls = readFileSync(join(runDir, "slack-messages.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as RecordedCall);
  const blocks = firstCard(calls);
  if (!blocks) {
    process.stderr.write(`${runDir}: no verdict card (a chat.update with buttons) in slack-messages.jsonl\n`);
    return 1;
  }
  const browser = await chromium.launch({ executablePath: await chromiumExecutable(), args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 820, height: 400 }, deviceScaleFactor: 1 });
    // Slack draws emoji in colour; the machine has no emoji font, so the page loads Twemoji (a
    // COLRv0 font, which headless Chromium draws) from its npm package, served by the page's own
    // routes: nothing leaves the machine.
    const font = createRequire(import.meta.url).resolve("twemoji-colr-font/twemoji.woff2");
    // Only for emoji code points: the font also has (blank) digits and letters for keycaps.
    const fontCss = `@font-face { font-family: "Twemoji"; src: url(${ORIGIN}/twemoji.woff2) format("woff2"); unicode-range: U+2190-21FF, U+2300-23FF, U+2600-27BF, U+2B00-2BFF, U+1F000-1FAFF, U+FE0F, U+200D; }`;
    const html = messagePage(blocks, { bot: "ferret", time: "3:16 AM", fontCss });
    await page.route(`${ORIGIN}/**`, async (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === "/card.html") return route.fulfill({ contentType: "text/html", body: html });
      if (path === "/twemoji.woff2")
        return route.fulfill({ contentType: "font/woff2", body: readFileSync(font) });
      return route.fulfill({ status: 404, body: "" });
    });
    await page.goto(`${ORIGIN}/card.html`);
    await page.evaluate("document.fonts.ready");
    const target = resolve(out);
    mkdirSync(dirname(target), { recursive: true });
    await page.locator(".message").screenshot({ path: target });
    process.stdout.write(`${target}\n`);
    return 0;
  } finally {
    await browser.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  process.exitCode = await main(process.argv.slice(2));
}

import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { blocksToPlain } from "../adapters/slack/render-plain.js";
import type { AnalystDecision } from "../domain/analyst.js";
import type { Investigation } from "../domain/investigation.js";
import type { JsonObject } from "../domain/json.js";
import { type SccStandIn, startSccStandIn } from "../local/scc-stand-in.js";
import { blockActionsBody, sendSigned } from "../local/slack-signer.js";
import { type SlackReceiver, startSlackReceiver } from "../local/slack-web-api.js";
import { ACTION_IDS } from "../notify/interactive.js";
import type { InvestigationStore } from "../ports/investigation-store.js";
import type { Printer } from "./progress.js";
import { terminalText } from "./terminal-text.js";

/**
 * The demo's Slack and SCC: a Web API stand-in the functions post to with a bot token, a gRPC
 * stand-in for Security Command Center that the official client writes to, and an analyst who
 * clicks Confirm on the verdict card with a request signed the way Slack signs it. What
 * `npm run demo` prints after the verdict comes from here.
 */
export interface DemoSlack {
  /** Environment for every function of the local stack. */
  env: Record<string, string>;
  /** Clicks Confirm on the verdict card and prints the thread root before and after. */
  click(context: ClickContext): Promise<void>;
  /** Writes every Web API call the stand-in received, one JSON object a line. */
  saveCalls(file: string): void;
  close(): Promise<void>;
}

export interface ClickContext {
  slackEventsUrl: string;
  store: Pick<InvestigationStore, "get">;
  investigation: Investigation;
  printer: Printer;
  timeoutMs?: number;
}

const TOKEN = "xoxb-ferret-demo";
const CHANNEL = "C0FERRETDEMO";
/** The analyst the demo's stand-in clicks as, and the only one the functions allow. */
export const DEMO_ANALYST = { id: "U0DEMOANALYST", username: "demo.analyst" } as const;

export async function startDemoSlack(): Promise<DemoSlack> {
  const web = await startSlackReceiver({ token: TOKEN });
  let scc: SccStandIn;
  try {
    scc = await startSccStandIn();
  } catch (error) {
    await web.close();
    throw error;
  }
  const secret = randomBytes(16).toString("hex");
  const { apiEndpoint, port } = scc.clientOptions as { apiEndpoint: string; port: number };
  return {
    env: {
      SLACK_BOT_TOKEN: TOKEN,
      FERRET_SLACK_CHANNEL: CHANNEL,
      FERRET_SLACK_API_URL: web.url,
      SLACK_SIGNING_SECRET: secret,
      FERRET_SLACK_ALLOWED_USERS: DEMO_ANALYST.id,
      FERRET_SCC_WRITEBACK: "true",
      FERRET_SCC_API_ENDPOINT: `${apiEndpoint}:${port}`,
    },
    click: (context) => click(web, scc, secret, context),
    saveCalls: (file) =>
      writeFileSync(
        file,
        web.requests.map((r) => JSON.stringify({ method: r.method, args: r.args, ok: r.ok })).join("\n"),
      ),
    close: async () => {
      await Promise.allSettled([web.close(), scc.close()]);
    },
  };
}

async function click(web: SlackReceiver, scc: SccStandIn, secret: string, ctx: ClickContext): Promise<void> {
  const { investigation: inv, printer } = ctx;
  const root = web.posts().find((p) => !p.args.thread_ts && JSON.stringify(p.args).includes(inv.id));
  const rootTs = root?.answer.ts;
  if (typeof rootTs !== "string") {
    printer.line("\nSlack: no thread root was posted for this investigation; nothing to click.");
    return;
  }
  // The notifier turns the root into the card when it handles the `concluded` event, which
  // can land after the investigation's document says concluded: wait for the card's buttons.
  await waitFor(ctx.timeoutMs ?? 120_000, async () =>
    hasActions(web.thread(rootTs).root) ? true : undefined,
  );
  const before = web.thread(rootTs);
  printRoot(printer, "Slack thread root before the click", before.root, before.replies.length);

  const confirm = findButton(before.root, ACTION_IDS.confirm);
  if (!confirm) {
    printer.line("  (the card has no Confirm button: the investigation has no verdict to confirm)");
    return;
  }
  const updatesBefore = web.updates().length;
  const answer = await sendSigned(
    ctx.slackEventsUrl,
    blockActionsBody(DEMO_ANALYST, confirm.actionId, confirm.value),
    { secret },
  );
  printer.line(
    `\n${DEMO_ANALYST.username} (${DEMO_ANALYST.id}) clicks Confirm: Slack's signed request got HTTP ${answer.status} from slackEvents`,
  );
  if (answer.status !== 200) throw new Error(`slackEvents refused the demo's click: ${answer.body}`);

  const decision = await waitFor(ctx.timeoutMs ?? 120_000, async () => {
    const now = await ctx.store.get(inv.id);
    const recorded = now?.analystDecisions?.find((d: AnalystDecision) => d.by.id === DEMO_ANALYST.id);
    return recorded && web.updates().length > updatesBefore ? recorded : undefined;
  });
  if (!decision) throw new Error("the analystActions worker did not record the click in time");
  const after = web.thread(rootTs);
  printRoot(printer, "Slack thread root after the click", after.root, after.replies.length);
  printer.line(`\nSCC calls (to the local stand-in, as the official client sent them):`);
  for (const call of scc.calls) {
    printer.line(`  ${call.version} ${call.method} ${terminalText(JSON.stringify(call.request))}`);
  }
  if (scc.calls.length === 0) printer.line("  (none)");
}

function printRoot(printer: Printer, title: string, root: Record<string, unknown>, replies: number): void {
  printer.line(`\n${title} (${replies} replies in the thread):`);
  const blocks = Array.isArray(root.blocks) ? (root.blocks as JsonObject[]) : [];
  for (const line of blocksToPlain(blocks)) printer.line(`  │ ${terminalText(line)}`);
}

function hasActions(message: Record<string, unknown>): boolean {
  return Array.isArray(message.blocks) && (message.blocks as JsonObject[]).some((b) => b.type === "actions");
}

/** The button a person would press: its action_id and value exactly as rendered on the card. */
function findButton(
  message: Record<string, unknown>,
  actionId: string,
): { actionId: string; value: string } | undefined {
  const blocks = Array.isArray(message.blocks) ? (message.blocks as JsonObject[]) : [];
  for (const block of blocks) {
    if (block.type !== "actions" || !Array.isArray(block.elements)) continue;
    for (const element of block.elements as JsonObject[]) {
      if (element.action_id === actionId && typeof element.value === "string")
        return { actionId, value: element.value };
    }
  }
  return undefined;
}

async function waitFor<T>(timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T | undefined> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(250);
  }
  return undefined;
}

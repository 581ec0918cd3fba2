import type { CheckResult } from "./checks.js";

/**
 * `ferret doctor`'s Slack check: the bot token is one Slack accepts (auth.test), the channel
 * ferret posts to exists and the bot is in it (conversations.info, is_member), and a message
 * posts (chat.postMessage). Without this a deployment can pass every other check and never
 * show a thread. Each refusal is Slack's own error code, turned into what to do.
 */

/** One Slack Web API call's answer: Slack's JSON, `ok: false` with an `error` code on refusal. */
export interface SlackAnswer {
  ok: boolean;
  error?: string;
  /** missing_scope names the scope the method needed. */
  needed?: string;
  [field: string]: unknown;
}

export interface SlackProbe {
  call(method: string, args: Record<string, unknown>): Promise<SlackAnswer>;
}

const MANIFEST = "examples/slack-app-manifest.json";

function refusal(method: string, answer: SlackAnswer, channel: string): { problem: string; fix: string } {
  const code = answer.error ?? "unknown_error";
  const problem = `${method} answered ${code}`;
  switch (code) {
    case "invalid_auth":
    case "not_authed":
    case "account_inactive":
    case "token_revoked":
    case "token_expired":
      return {
        problem: `${problem}: Slack does not accept the bot token`,
        fix: "add the app's Bot User OAuth Token (xoxb-…) as a new version of ferret-slack-bot-token (docs/deploy.md step 6)",
      };
    case "missing_scope":
      return {
        problem: `${problem}${answer.needed ? ` (needs ${answer.needed})` : ""}`,
        fix: `give the app the scopes in ${MANIFEST} and reinstall it to the workspace, then store the new token`,
      };
    case "channel_not_found":
      return {
        problem: `${problem}: no channel ${channel} the bot can see`,
        fix: "set slack_channel_id to the channel's ID (channel details > About, starts with C), not its name; for a private channel invite the bot first",
      };
    case "not_in_channel":
      return {
        problem: `${problem}: the bot is not a member of ${channel}`,
        fix: `invite the bot in that channel: /invite @<your app>`,
      };
    case "is_archived":
      return { problem: `${problem}: ${channel} is archived`, fix: "unarchive it or pick another channel" };
    default:
      return { problem, fix: "see https://docs.slack.dev/reference/methods/" + method };
  }
}

export async function checkSlack(
  slack: SlackProbe,
  target: { channel?: string; postTestMessage: boolean; now?: () => Date },
): Promise<CheckResult> {
  const check = "Slack";
  const fail = (problem: string, fix: string): CheckResult => ({
    check,
    ok: false,
    lines: [problem],
    fixes: [fix],
  });
  try {
    const auth = await slack.call("auth.test", {});
    if (!auth.ok) {
      const r = refusal("auth.test", auth, target.channel ?? "");
      return fail(r.problem, r.fix);
    }
    const who = `${String(auth.user ?? "the bot")} in ${String(auth.team ?? "the workspace")}`;
    if (!target.channel)
      return fail(
        `the bot token works (${who}), but no channel was given`,
        "pass --slack-channel <ID> (slack_channel_id in terraform.tfvars)",
      );
    const info = await slack.call("conversations.info", { channel: target.channel });
    if (!info.ok) {
      const r = refusal("conversations.info", info, target.channel);
      return fail(r.problem, r.fix);
    }
    const channel = (info.channel ?? {}) as { name?: string; is_member?: boolean; is_archived?: boolean };
    const label = channel.name ? `#${channel.name} (${target.channel})` : target.channel;
    if (channel.is_archived) return fail(`${label} is archived`, "unarchive it or pick another channel");
    if (channel.is_member !== true)
      return fail(
        `the bot is not a member of ${label}`,
        "invite the bot in that channel: /invite @<your app>",
      );
    if (!target.postTestMessage) return { check, ok: true, lines: [`${who}, member of ${label}`], fixes: [] };
    const at = (target.now?.() ?? new Date()).toISOString();
    const posted = await slack.call("chat.postMessage", {
      channel: target.channel,
      text: `ferret doctor: test message (${at}). Investigation threads will appear in this channel.`,
    });
    if (!posted.ok) {
      const r = refusal("chat.postMessage", posted, label);
      return fail(r.problem, r.fix);
    }
    return {
      check,
      ok: true,
      lines: [`${who}, member of ${label}; test message posted (ts ${String(posted.ts)})`],
      fixes: [],
    };
  } catch (error) {
    return fail(
      `could not reach Slack: ${error instanceof Error ? error.message : String(error)}`,
      "check the machine's network access to slack.com",
    );
  }
}

import { createHmac } from "node:crypto";

/**
 * Slack's side of a request to ferret, signed the way Slack signs
 * (https://api.slack.com/authentication/verifying-requests-from-slack): `v0:` + timestamp +
 * `:` + raw body, HMAC-SHA256 with the app's signing secret, hex, as `X-Slack-Signature: v0=…`
 * with `X-Slack-Request-Timestamp`. Written independently of the helper ferret verifies with,
 * so a test passing means both agree with the documentation, not with each other.
 */

export interface SignOptions {
  secret: string;
  /** Unix seconds; defaults to now. An old one makes a replay. */
  timestamp?: number;
}

export function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

export interface SlackUser {
  id: string;
  username?: string;
}

export function blockActionsBody(
  user: SlackUser,
  actionId: string,
  value: string,
  triggerId = "1337.42.abcd",
): string {
  const payload = {
    type: "block_actions",
    user: { id: user.id, username: user.username ?? "analyst", team_id: "T0001" },
    api_app_id: "A0001",
    team: { id: "T0001", domain: "acme" },
    trigger_id: triggerId,
    container: {
      type: "message",
      message_ts: "1714557601.000100",
      channel_id: "C0FERRET",
      is_ephemeral: false,
    },
    channel: { id: "C0FERRET", name: "security" },
    response_url: "https://hooks.slack.com/actions/T0001/1/abc",
    actions: [
      {
        action_id: actionId,
        block_id: "ferret_verdict_actions",
        text: { type: "plain_text", text: "button", emoji: true },
        value,
        type: "button",
        action_ts: "1714557700.123456",
      },
    ],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

export function disputeSubmissionBody(
  user: SlackUser,
  investigationId: string,
  verdict: string | undefined,
  reason: string | undefined,
): string {
  const payload = {
    type: "view_submission",
    team: { id: "T0001", domain: "acme" },
    user: { id: user.id, username: user.username ?? "analyst", team_id: "T0001" },
    api_app_id: "A0001",
    trigger_id: "1337.43.efgh",
    view: {
      id: "V00000001",
      type: "modal",
      callback_id: "ferret_dispute_modal",
      private_metadata: investigationId,
      state: {
        values: {
          verdict: {
            verdict_select: {
              type: "static_select",
              selected_option: verdict
                ? { text: { type: "plain_text", text: verdict }, value: verdict }
                : null,
            },
          },
          reason: { reason_input: { type: "plain_text_input", value: reason ?? null } },
        },
      },
    },
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** POSTs `body` to ferret's endpoint as Slack would, signed unless `sign` is false. */
export async function sendSigned(
  url: string,
  body: string,
  options: SignOptions & { contentType?: string; signature?: string },
): Promise<{ status: number; body: string }> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": options.contentType ?? "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": String(timestamp),
      "x-slack-signature": options.signature ?? slackSignature(options.secret, timestamp, body),
    },
    body,
  });
  return { status: res.status, body: await res.text() };
}

import { LogLevel, WebClient } from "@slack/web-api";
import type { SlackAnswer, SlackProbe } from "../../doctor/slack.js";

/**
 * The doctor's Slack calls through the official client. A refusal (`ok: false`) comes back as
 * Slack's answer, not as an exception, so the check can say what the error code means; only a
 * failure to reach Slack throws.
 */
export function slackProbe(token: string, apiUrl?: string): SlackProbe {
  const client = new WebClient(token, {
    ...(apiUrl ? { slackApiUrl: apiUrl } : {}),
    logLevel: LogLevel.ERROR,
    retryConfig: { retries: 2 },
  });
  return {
    async call(method, args) {
      try {
        return (await client.apiCall(method, args)) as SlackAnswer;
      } catch (error) {
        const data = (error as { data?: SlackAnswer }).data;
        if (data && data.ok === false) return data;
        throw error;
      }
    },
  };
}

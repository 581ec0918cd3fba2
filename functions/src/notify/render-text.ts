import { SLACK_LIMITS } from "./block-kit.js";
import { type Mrkdwn, truncateMd } from "./mrkdwn.js";

/**
 * The top-level `text`: what push notifications, screen readers and clients without Block
 * Kit show. It is parsed like mrkdwn, so it is built from the same safe values.
 */
export function fallbackText(text: Mrkdwn): string {
  return truncateMd(text, SLACK_LIMITS.fallbackText).text.replace(/\s*\n\s*/g, " ");
}

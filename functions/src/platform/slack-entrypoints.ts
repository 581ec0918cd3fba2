import { ANALYST_TOPICS } from "./topics.js";

/**
 * The analyst's loop, deployed by terraform/slack-events.tf (not the main function table):
 * `slackEvents` is the one function Slack calls directly (public, authenticated by Slack's
 * request signature); `analystActions` does the work behind it from Pub/Sub.
 */
export const SLACK_ENTRY_POINTS = [
  { name: "slackEvents", trigger: "http", calledBy: "slack" },
  { name: "analystActions", trigger: "pubsub", topic: ANALYST_TOPICS.analystActions },
] as const;

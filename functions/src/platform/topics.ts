/**
 * Pub/Sub topic names used by the code. Terraform creates exactly these (checked by
 * test/unit/terraform), and the local stack creates them on the emulator.
 */
export const TOPICS = {
  /** SCC NotificationConfig publishes findings here; `ingest` consumes it. */
  findings: "scc-findings",
  /** Every investigation state change; `notifier` consumes it. */
  investigationEvents: "investigation-events",
  /** One message per log-analysis sub-agent session; `memoryIntrospector` consumes it. */
  agentSessions: "agent-sessions",
  /** Analysts' clicks accepted by `slackEvents`; the `analystActions` worker consumes it. */
  analystActions: "analyst-actions",
  /**
   * Housekeeping requests (app/sweep-request.ts); the `sweep` function consumes it. Cloud
   * Scheduler publishes a scheduled sweep (terraform/scheduler.tf); the notifier publishes a
   * drain when an investigation finishes, so the governor's queue moves at once.
   */
  sweep: "sweep-requests",
} as const;

export type TopicKey = keyof typeof TOPICS;

/** The analyst's loop's topic under the name its first callers use. */
export const ANALYST_TOPICS = { analystActions: TOPICS.analystActions } as const;

export type TopicName = (typeof TOPICS)[TopicKey];

/**
 * Topics whose deployed subscription delivers messages of one ordering key in order
 * (Terraform's `ordered`): investigation events, keyed by investigation, so a Slack thread
 * reads in the order things happened. The local stack leaves them unordered: the emulator
 * does not dead-letter on an ordered subscription.
 */
export const ORDERED_TOPICS: ReadonlySet<TopicName> = new Set<TopicName>([TOPICS.investigationEvents]);

/** Each push subscription dead-letters into `<topic>-dead-letter`. */
export function deadLetterTopic(topic: TopicName): string {
  return `${topic}-dead-letter`;
}

import type { EventType } from "../domain/investigation.js";

/**
 * Which investigation events reach Slack. A thread should read like an analyst's notes:
 * the finding and plan on top, then one reply per thing learned, then the verdict.
 *
 * - root_only: make sure the thread exists, post nothing else.
 * - reply: post a threaded reply (creating the root first if this event arrives first).
 * - skip: nothing at all.
 */
export type EventPosting = "root_only" | "reply" | "skip";

export const EVENT_POSTING: Record<EventType, { posting: EventPosting; why: string }> = {
  created: { posting: "root_only", why: "the thread root is the announcement" },
  planned: { posting: "reply", why: "the plan, unless the root already showed it" },
  step_started: {
    posting: "skip",
    why: "step_finished says everything a start would, and parallel waves would interleave starts and ends",
  },
  step_finished: { posting: "reply", why: "what the step found" },
  reflected: { posting: "reply", why: "insights and plan changes explain where the investigation goes next" },
  compressed: { posting: "reply", why: "rare, and readers should know the agent summarized its own history" },
  concluded: { posting: "reply", why: "the verdict" },
  needs_human: { posting: "reply", why: "a person has to take over" },
  failed: { posting: "reply", why: "a person has to take over" },
  queued: { posting: "reply", why: "readers should know the finding waits, and behind how many" },
  related: {
    posting: "root_only",
    why: "a storm would bury the thread in replies; the root's count is updated in place instead",
  },
  approval_requested: {
    posting: "reply",
    why: "the Approve / Deny message for an acting call: the workflow waits on it",
  },
  approval_decided: {
    posting: "reply",
    why: "the approval message is updated in place: who decided, or that nobody did in time",
  },
  action_ran: { posting: "reply", why: "the approval message is updated in place with what the call did" },
};

export function postingFor(type: EventType): EventPosting {
  return EVENT_POSTING[type].posting;
}

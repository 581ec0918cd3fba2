import { PubSubEventBus } from "../adapters/pubsub/event-bus.js";
import { SCHEDULED_SWEEP } from "../app/sweep-request.js";
import { TOPICS } from "../platform/topics.js";

/**
 * Locally, Cloud Scheduler's job (terraform/scheduler.tf): publishes a scheduled sweep request
 * to the sweep-requests topic every `periodMs`, which the push subscription delivers to the
 * sweep function. Deployed, the period is `sweep_schedule` (15 minutes); locally it is shorter
 * (LOCAL_SWEEP_PERIOD_MS) so a local run shows what a sweep does within a session.
 */
export const LOCAL_SWEEP_PERIOD_MS = 60_000;

export interface SweepSchedule {
  stop(): Promise<void>;
}

export function startSweepSchedule(
  projectId: string,
  periodMs: number,
  onError: (message: string) => void,
): SweepSchedule {
  const bus = new PubSubEventBus(projectId);
  const tick = () => {
    // Like a Cloud Scheduler attempt that fails: reported, and the next period tries again.
    bus.publish(TOPICS.sweep, SCHEDULED_SWEEP).catch((error: unknown) => {
      onError(`scheduled sweep not published: ${error instanceof Error ? error.message : String(error)}`);
    });
  };
  const timer = setInterval(tick, periodMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await bus.close();
    },
  };
}

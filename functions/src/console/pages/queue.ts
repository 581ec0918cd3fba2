import { queueReport } from "../../app/queue-report.js";
import type { ConsoleDeps } from "../ports.js";

/** The storm governor as `ferret queue` reports it: queue, limits with usage, running, groups. */
export async function queuePage(deps: Pick<ConsoleDeps, "governor" | "config" | "now">) {
  const report = await queueReport(deps.governor, deps.config.governor, deps.now(), { next: 50, groups: 20 });
  return {
    title: "Queue and governor",
    nav: "queue",
    report: { ...report, blockedBy: report.blockedBy ?? "" },
  };
}

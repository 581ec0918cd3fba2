import type { Config } from "../config/config.js";
import type { AnalystAction, AnalystDecision } from "../domain/analyst.js";
import { InvalidInputError } from "../domain/errors.js";
import type { Investigation } from "../domain/investigation.js";
import { lessonFromDispute } from "../domain/lesson.js";
import { type Block, context, section } from "../notify/block-kit.js";
import { md, slackMention, untrusted } from "../notify/mrkdwn.js";
import { rootTsOf, updateBoard } from "../notify/notifier.js";
import { DEFAULT_POST_ONCE_POLICY, postOnce } from "../notify/post-once.js";
import { verdictText } from "../notify/presentation.js";
import { fallbackText } from "../notify/render-text.js";
import type { Logger } from "../platform/logger.js";
import type { ChatMessage, ChatSink } from "../ports/chat-sink.js";
import type { InvestigationStore } from "../ports/investigation-store.js";
import type { LessonStore } from "../ports/lesson-store.js";
import type { SccFindings } from "../ports/scc-findings.js";
import { sccMarksFor } from "./scc-marks.js";

export interface AnalystActionDeps {
  config: Pick<Config, "scc">;
  store: InvestigationStore;
  sink: ChatSink;
  scc?: SccFindings;
  lessons?: LessonStore;
  logger: Logger;
  now: () => Date;
}

export interface AnalystActionOutcome {
  recorded: boolean;
  scc: "marks" | "marks+mute" | "marks+inactive" | "off";
  lesson: boolean;
  reply: "posted" | "already_posted" | "no_thread";
}

export const ANALYST_REPLY_SCOPE = "slack-analyst";

/**
 * Carries out one analyst action. Each effect is idempotent on its own (the decision is
 * appended once per action id, SCC calls set values, the lesson is created once, the reply is
 * posted once per action id), so a redelivery or a double click repeats nothing, and a
 * failure half way is finished by the redelivery.
 */
export async function handleAnalystAction(
  action: AnalystAction,
  deps: AnalystActionDeps,
): Promise<AnalystActionOutcome> {
  if (action.kind === "reinvestigate") {
    throw new InvalidInputError("Re-investigate is carried out by handleReinvestigate, not here");
  }
  const existing = await deps.store.require(action.investigationId);
  const sccAction = action.kind === "scc_mute" || action.kind === "scc_inactive";
  if (!sccAction && !existing.conclusion) {
    throw new InvalidInputError(`${action.investigationId} has no verdict to ${action.kind}`);
  }
  if (sccAction && !(deps.config.scc.writeback && deps.config.scc.analystMuteAndState && deps.scc)) {
    throw new InvalidInputError(`${action.kind} is not enabled (scc.writeback and scc.analystMuteAndState)`);
  }

  const decision: AnalystDecision = {
    actionId: action.actionId,
    kind: action.kind,
    by: action.user,
    ...(existing.conclusion ? { ferretVerdict: existing.conclusion.verdict } : {}),
    ...(action.kind === "confirm" && existing.conclusion ? { verdict: existing.conclusion.verdict } : {}),
    ...(action.kind === "dispute" ? { verdict: action.verdict, reason: action.reason } : {}),
    at: action.at,
  };
  const { investigation, recorded } = await appendDecision(
    deps.store,
    action.investigationId,
    decision,
    deps.now,
  );

  const scc = await writeBack(investigation, action, deps);
  const lessonDraft = lessonFromDispute(investigation, action);
  let lesson = false;
  if (lessonDraft && deps.lessons) {
    await deps.lessons.add(lessonDraft); // false on a redelivery: the lesson is there already
    lesson = true;
  }

  const rootTs = await rootTsOf(deps.store, investigation.id);
  if (!rootTs) {
    deps.logger.warn("analyst action on an investigation without a Slack thread", {
      actionId: action.actionId,
    });
    return { recorded, scc, lesson, reply: "no_thread" };
  }
  await updateBoard(investigation, rootTs, deps.sink, deps.store, {
    sccButtons: deps.config.scc.writeback && deps.config.scc.analystMuteAndState,
  });
  const reply = await postOnce(
    {
      scope: ANALYST_REPLY_SCOPE,
      key: action.actionId,
      post: () => deps.sink.post({ ...renderActionReply(action, investigation, scc), threadTs: rootTs }),
    },
    { store: deps.store, logger: deps.logger, now: deps.now, policy: DEFAULT_POST_ONCE_POLICY },
  );
  return { recorded, scc, lesson, reply: reply.status };
}

/** Appends the decision unless one with its action id is there already (a redelivery, a double click). */
export async function appendDecision(
  store: Pick<InvestigationStore, "update">,
  investigationId: string,
  decision: AnalystDecision,
  now: () => Date,
): Promise<{ investigation: Investigation; recorded: boolean }> {
  const committed = await store.update(investigationId, (current) => {
    if (current.analystDecisions?.some((d) => d.actionId === decision.actionId)) return undefined;
    return {
      investigation: {
        ...current,
        analystDecisions: [...(current.analystDecisions ?? []), decision],
        updatedAt: now().toISOString(),
      },
    };
  });
  const investigation = committed.investigation;
  return {
    investigation,
    recorded: investigation.analystDecisions?.some((d) => d.actionId === decision.actionId) ?? false,
  };
}

async function writeBack(
  investigation: Investigation,
  action: AnalystAction,
  deps: AnalystActionDeps,
): Promise<AnalystActionOutcome["scc"]> {
  if (!deps.config.scc.writeback || !deps.scc) return "off";
  const name = investigation.finding.name;
  await deps.scc.setSecurityMarks(name, sccMarksFor(investigation));
  if (action.kind === "scc_mute") {
    await deps.scc.setMute(name);
    return "marks+mute";
  }
  if (action.kind === "scc_inactive") {
    await deps.scc.setInactive(name, new Date(action.at));
    return "marks+inactive";
  }
  return "marks";
}

const SCC_NOTE: Record<AnalystActionOutcome["scc"], string> = {
  off: "",
  marks: " · SCC security marks updated",
  "marks+mute": " · finding muted in SCC",
  "marks+inactive": " · finding marked INACTIVE in SCC",
};

/** The thread reply: who did what, in the analyst's words (fenced by escaping, never as markup). */
export function renderActionReply(
  action: AnalystAction,
  investigation: Investigation,
  scc: AnalystActionOutcome["scc"],
): ChatMessage {
  const who = slackMention(action.user.id);
  const ferret = investigation.conclusion ? verdictText(investigation.conclusion.verdict) : "no verdict";
  const line = (() => {
    switch (action.kind) {
      case "confirm":
        return md`👍 ${who} confirmed ferret's verdict: ${ferret}`;
      case "dispute":
        return md`✋ ${who} disputed ferret's verdict (${ferret}) → ${action.verdict ? verdictText(action.verdict) : "?"}`;
      case "scc_mute":
        return md`🔕 ${who} muted the finding in Security Command Center`;
      case "scc_inactive":
        return md`💤 ${who} marked the finding inactive in Security Command Center`;
      case "reinvestigate":
        return md`🔁 ${who} asked ferret to investigate this finding again; progress follows in this thread`;
    }
  })();
  const blocks: Block[] = [section(line)];
  if (action.kind === "dispute" && action.reason) {
    blocks.push(
      section(md`*Reason* (the analyst's words)\n>${untrusted(action.reason, { max: 1_000, inline: true })}`),
    );
    blocks.push(
      context([
        md`ferret will show this to the planner of later ${untrusted(investigation.finding.category, { max: 100, inline: true })} findings.${SCC_NOTE[scc]}`,
      ]),
    );
  } else if (scc !== "off") {
    blocks.push(context([md`${SCC_NOTE[scc].replace(/^ · /, "")}`]));
  }
  return { text: fallbackText(line), blocks };
}

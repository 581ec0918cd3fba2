import type { Config } from "../config/config.js";
import { type EvidenceItem, evidenceOf, type ThreadQuestion } from "../domain/thread-question.js";
import type { Model } from "../model/port.js";
import { type Block, context, section } from "../notify/block-kit.js";
import { joinMd, md, slackMention, untrusted } from "../notify/mrkdwn.js";
import { DEFAULT_POST_ONCE_POLICY, postOnce } from "../notify/post-once.js";
import { fallbackText } from "../notify/render-text.js";
import type { Logger } from "../platform/logger.js";
import type { ChatMessage, ChatSink } from "../ports/chat-sink.js";
import type { ClaimStore, InvestigationReader } from "../ports/investigation-store.js";
import type { ToolBox } from "../tools/toolbox.js";
import { answerThreadQuestion, type ThreadAnswerOutcome } from "./thread-answer.js";
import { investigationOfThread } from "./thread-lookup.js";

export interface ThreadQuestionDeps {
  config: Pick<Config, "slack" | "agent">;
  store: ClaimStore & InvestigationReader;
  sink: ChatSink;
  /** Chosen for the investigation the thread is about (appDepsFor), once it is known. */
  brains: (investigationId: string) => Promise<{ model: Model; toolbox: ToolBox }>;
  logger: Logger;
}

export interface ThreadQuestionOutcome {
  status: "answered" | "already_answered" | "not_our_thread" | "other_channel";
  investigationId?: string;
  citations?: string[];
}

/** Claim scope of answers: one per Slack event id, however often Slack or Pub/Sub deliver it. */
export const ANSWER_SCOPE = "slack-answer";

/**
 * Answers a question asked in an investigation's thread, once per Slack event. The thread
 * names the investigation (its root's ts, or a re-investigation in it); the answer is
 * grounded in that investigation's stored evidence and lists what it cites.
 */
export async function handleThreadQuestion(
  question: ThreadQuestion,
  deps: ThreadQuestionDeps,
): Promise<ThreadQuestionOutcome> {
  const log = deps.logger.child({ eventId: question.eventId });
  const channel = deps.config.slack.channel;
  if (channel && question.channel !== channel) {
    log.info("question in a channel ferret does not post to ignored", { channel: question.channel });
    return { status: "other_channel" };
  }
  const claims = { store: deps.store, logger: log, now: () => new Date(), policy: DEFAULT_POST_ONCE_POLICY };
  if (await deps.store.readClaim(`${ANSWER_SCOPE}-posted`, question.eventId)) {
    return { status: "already_answered" };
  }
  const investigationId = await investigationOfThread(deps.store, question.threadTs);
  if (!investigationId) {
    await postOnce(
      {
        scope: ANSWER_SCOPE,
        key: question.eventId,
        post: () => deps.sink.post({ ...renderNotOurThread(question), threadTs: question.threadTs }),
      },
      claims,
    );
    return { status: "not_our_thread" };
  }
  const investigation = await deps.store.require(investigationId);
  const results = await deps.store.listStepResults(investigationId);
  const { model, toolbox } = await deps.brains(investigationId);
  const answered = await answerThreadQuestion({
    question: question.text,
    investigation,
    evidence: evidenceOf(investigation, results),
    model,
    toolbox,
    tools: deps.config.slack.questionTools,
    maxToolCalls: deps.config.slack.questionMaxToolCalls,
    logger: log.child({ investigationId }),
    signal: AbortSignal.timeout(deps.config.agent.stepDeadlineSeconds * 1000),
  });
  const posted = await postOnce(
    {
      scope: ANSWER_SCOPE,
      key: question.eventId,
      post: () =>
        deps.sink.post({
          ...renderThreadAnswer(question, answered, model.offline),
          threadTs: question.threadTs,
        }),
    },
    claims,
  );
  log.info("thread question answered", {
    investigationId,
    reply: posted.status,
    citations: answered.citations,
    toolCalls: answered.calls.map((c) => `${c.name}:${c.ok ? "ok" : "failed"}`),
    llmCalls: answered.usage.llmCalls,
  });
  return {
    status: posted.status === "posted" ? "answered" : "already_answered",
    investigationId,
    citations: answered.citations,
  };
}

const MAX_ANSWER_CHARS = 2_800;
const MAX_SOURCES = 10;

/**
 * The reply: the answer (untrusted: it quotes evidence, so it is escaped and defanged) and
 * the evidence it cites by ref and title. The question itself is not repeated: it is right
 * above in the thread, and echoing it would let an analyst's text speak in ferret's voice.
 */
export function renderThreadAnswer(
  question: ThreadQuestion,
  answered: ThreadAnswerOutcome,
  offline: boolean,
): ChatMessage {
  const byRef = new Map<string, EvidenceItem>(answered.evidence.map((e) => [e.ref, e]));
  const head = md`💬 ${slackMention(question.user.id)} ferret's answer, from this investigation's evidence:`;
  const blocks: Block[] = [section(head), section(untrusted(answered.answer, { max: MAX_ANSWER_CHARS }))];
  const sources = answered.citations.slice(0, MAX_SOURCES).map((ref) => {
    const item = byRef.get(ref);
    return md`\`${untrusted(ref, { max: 80, inline: true })}\` ${untrusted(item?.title ?? "", { max: 160, inline: true })}`;
  });
  blocks.push(
    context([sources.length > 0 ? md`*Cited:* ${joinMd(sources, " · ")}` : md`_No stored evidence cited._`]),
  );
  const asked = answered.calls.map(
    (c) => md`${untrusted(c.name, { max: 60, inline: true })} (${c.ok ? "ok" : "failed"})`,
  );
  const who = offline
    ? md`Answered by the offline playbook model (no LLM): it matches the question against the evidence`
    : md`Answered by ${untrusted(answered.model, { max: 80, inline: true })}`;
  blocks.push(context([asked.length > 0 ? md`${who} · tools called now: ${joinMd(asked, ", ")}` : who]));
  return {
    text: fallbackText(md`ferret's answer: ${untrusted(answered.answer, { max: 300, inline: true })}`),
    blocks,
  };
}

function renderNotOurThread(question: ThreadQuestion): ChatMessage {
  const line = md`${slackMention(question.user.id)} ferret answers questions in the threads of its investigations; this thread is not one of them.`;
  return { text: fallbackText(line), blocks: [section(line)] };
}

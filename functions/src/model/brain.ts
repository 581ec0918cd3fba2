import type { Investigation } from "../domain/investigation.js";

/**
 * Which brain produced an investigation, said once wherever it is shown (the verdict card's
 * footer, the CLI, the console): the configured LLM, the offline playbook model, or the LLM
 * until it failed and then the offline model.
 */
export type Brain =
  | { kind: "offline"; model: string }
  | { kind: "llm"; model: string }
  | { kind: "llm_then_offline"; model: string };

/**
 * Every text the offline model writes carries this mark, so nobody reading a plan, a step
 * report or a reflection in Slack mistakes rule output for an LLM's judgement.
 */
export const OFFLINE_MARK = "[offline playbook, no LLM]";

export const OFFLINE_MODEL_NAME = "offline-playbook";

export const OFFLINE_BRAIN_TEXT = "offline playbook model — no LLM";

/** The note the concluder puts on every conclusion the offline model wrote. */
export const OFFLINE_CONCLUDER_NOTE =
  "Written by the offline playbook model: rules over the evidence, no LLM.";

/**
 * The offline model's names start with "offline" ("offline-playbook", or "offline" on records
 * written by tests and older versions); a Gemini model id never does.
 */
export function isOfflineModelName(model: string): boolean {
  return model === OFFLINE_MODEL_NAME || /^offline\b/i.test(model);
}

export function brainOf(
  investigation: Pick<Investigation, "model" | "fellBackToOffline" | "conclusion">,
): Brain {
  const model = investigation.model;
  if (investigation.fellBackToOffline) return { kind: "llm_then_offline", model };
  if (investigation.conclusion?.producedBy.offline || isOfflineModelName(model)) {
    return { kind: "offline", model };
  }
  return { kind: "llm", model };
}

/** "offline playbook model — no LLM", "gemini-2.5-pro", "gemini-2.5-pro, then the offline …". */
export function brainText(brain: Brain): string {
  switch (brain.kind) {
    case "offline":
      return OFFLINE_BRAIN_TEXT;
    case "llm":
      return brain.model;
    case "llm_then_offline":
      return `${brain.model}, then the ${OFFLINE_BRAIN_TEXT} after the LLM became unavailable`;
  }
}

/** Text the offline model wrote starts with its mark; places that name the brain once drop it. */
export function withoutOfflineMark(text: string): string {
  return text.startsWith(OFFLINE_MARK) ? text.slice(OFFLINE_MARK.length).trimStart() : text;
}

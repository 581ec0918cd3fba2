/**
 * Every text the offline model writes carries this mark, so nobody reading a plan, a step
 * report or a reflection in Slack mistakes rule output for an LLM's judgement.
 */
export const OFFLINE_MARK = "[offline playbook, no LLM]";

export const OFFLINE_MODEL_NAME = "offline-playbook";

export function marked(text: string): string {
  return text.startsWith(OFFLINE_MARK) ? text : `${OFFLINE_MARK} ${text}`;
}

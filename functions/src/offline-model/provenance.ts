import { OFFLINE_MARK } from "../model/brain.js";

export function marked(text: string): string {
  return text.startsWith(OFFLINE_MARK) ? text : `${OFFLINE_MARK} ${text}`;
}

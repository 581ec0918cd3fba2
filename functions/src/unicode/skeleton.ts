import { confusables } from "./confusables.js";

const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * The UTS #39 skeleton (section 4, Confusable Detection): NFD; drop Default_Ignorable_Code_Point
 * characters; replace each character by its prototype from confusables.txt; NFD again. Two
 * strings with the same skeleton can be mistaken for each other. It is case-sensitive, as the
 * data is (`I` → `l`, but `i` stays `i`), and it is for comparing only, never for display.
 */
export function skeleton(text: string, prototypes = confusables().prototypes): string {
  let mapped = "";
  for (const ch of text.normalize("NFD").replace(DEFAULT_IGNORABLE, "")) mapped += prototypes.get(ch) ?? ch;
  return mapped.normalize("NFD");
}

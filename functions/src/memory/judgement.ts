import { factKey, type MemoryFact } from "./fact.js";
import { type Introspection, MAX_NEW_FACTS } from "./introspection.js";
import { type MemoryId, MemoryIdSchema } from "./memory.js";

/** The introspector's answer after the rules that do not trust it. */
export interface Judgement {
  facts: MemoryFact[];
  helpful: MemoryId[];
  harmful: MemoryId[];
  /** Ids the model named that the session was never given: invented or copied from data. */
  ignored: string[];
  /** Named both helpful and harmful: no verdict, so neither is applied. */
  conflicting: MemoryId[];
}

/**
 * Only memories that were put into the session's prompt can be judged; anything else the
 * model names is ignored (a model can invent ids, and a log row can contain text that looks
 * like one). New facts are deduplicated and dropped when they only restate a memory the
 * session was given. What a fact may say was decided by its type when the answer was parsed.
 */
export function judge(
  answer: Introspection,
  recalledIds: readonly string[],
  recalledFacts: readonly MemoryFact[],
): Judgement {
  const given = new Set(recalledIds.filter((id) => MemoryIdSchema.safeParse(id).success));
  const ignored = new Set<string>();
  const pick = (ids: readonly string[]): Set<MemoryId> => {
    const kept = new Set<MemoryId>();
    for (const raw of ids) {
      const id = raw.trim();
      if (given.has(id)) kept.add(id);
      else ignored.add(raw);
    }
    return kept;
  };
  const helpful = pick(answer.helpfulMemoryIds);
  const harmful = pick(answer.harmfulMemoryIds);
  const conflicting = [...helpful].filter((id) => harmful.has(id));
  for (const id of conflicting) {
    helpful.delete(id);
    harmful.delete(id);
  }
  return {
    facts: newFacts(answer.facts, recalledFacts),
    helpful: [...helpful],
    harmful: [...harmful],
    ignored: [...ignored],
    conflicting,
  };
}

function newFacts(facts: readonly MemoryFact[], known: readonly MemoryFact[]): MemoryFact[] {
  const seen = new Set(known.map(factKey));
  const out: MemoryFact[] = [];
  for (const fact of facts) {
    const key = factKey(fact);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(fact);
    if (out.length === MAX_NEW_FACTS) break;
  }
  return out;
}

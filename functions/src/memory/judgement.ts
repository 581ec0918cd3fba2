import { type Introspection, MAX_NEW_CLAIMS } from "./introspection.js";
import { type MemoryId, MemoryIdSchema } from "./memory.js";

/** The introspector's answer after the rules that do not trust it. */
export interface Judgement {
  claims: string[];
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
 * like one). New claims are trimmed, deduplicated, and dropped when they only restate a
 * memory the session was given.
 */
export function judge(
  answer: Introspection,
  recalledIds: readonly string[],
  recalledClaims: readonly string[],
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
    claims: newClaims(answer.claims, recalledClaims),
    helpful: [...helpful],
    harmful: [...harmful],
    ignored: [...ignored],
    conflicting,
  };
}

function newClaims(claims: readonly string[], known: readonly string[]): string[] {
  const seen = new Set(known.map(normalize));
  const out: string[] = [];
  for (const raw of claims) {
    const claim = raw.replace(/\s+/g, " ").trim();
    const key = normalize(claim);
    if (claim === "" || seen.has(key)) continue;
    seen.add(key);
    out.push(claim);
    if (out.length === MAX_NEW_CLAIMS) break;
  }
  return out;
}

function normalize(claim: string): string {
  return claim
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase()
    .replace(/[.。]$/, "");
}

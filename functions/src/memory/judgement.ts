import { type ClaimRefusal, claimRefusal } from "./claim-check.js";
import { type Introspection, MAX_NEW_CLAIMS } from "./introspection.js";
import { type MemoryId, MemoryIdSchema } from "./memory.js";

/** The introspector's answer after the rules that do not trust it. */
export interface Judgement {
  claims: string[];
  /** Claims the code refused (claim-check.ts), each with why: never stored. */
  refused: ClaimRefusal[];
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
 * memory the session was given; a claim that states a verdict, harmlessness, an approval or
 * trust, names an entity, or addresses the agent is refused (claim-check.ts), whatever the
 * model was persuaded of.
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
  const { claims, refused } = newClaims(answer.claims, recalledClaims);
  return {
    claims,
    refused,
    helpful: [...helpful],
    harmful: [...harmful],
    ignored: [...ignored],
    conflicting,
  };
}

function newClaims(
  claims: readonly string[],
  known: readonly string[],
): { claims: string[]; refused: ClaimRefusal[] } {
  const seen = new Set(known.map(normalize));
  const out: string[] = [];
  const refused: ClaimRefusal[] = [];
  for (const raw of claims) {
    const claim = raw.replace(/\s+/g, " ").trim();
    const key = normalize(claim);
    if (claim === "" || seen.has(key)) continue;
    seen.add(key);
    const reason = claimRefusal(claim);
    if (reason) {
      refused.push({ claim, reason });
      continue;
    }
    out.push(claim);
    if (out.length === MAX_NEW_CLAIMS) break;
  }
  return { claims: out, refused };
}

function normalize(claim: string): string {
  return claim
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase()
    .replace(/[.。]$/, "");
}

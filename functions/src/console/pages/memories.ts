import { z } from "zod";
import { InvalidInputError } from "../../domain/errors.js";
import { factText } from "../../memory/fact.js";
import type { Memory } from "../../memory/memory.js";
import type { ConsoleDeps } from "../ports.js";

/** Memories read per page, highest score first; the text search runs over these. */
export const MEMORY_PAGE = 500;

const MemoryQuerySchema = z.object({ q: z.string().trim().max(300).optional() });

/**
 * The memories page. Search here is a case-insensitive text match over the fact's text of
 * the highest-scored memories (in memory, bounded); recall's semantic search
 * needs the embedding model and stays `ferret memories search`.
 */
export async function memoriesPage(
  deps: Pick<ConsoleDeps, "memories">,
  rawQuery: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const parsed = MemoryQuerySchema.safeParse({ q: typeof rawQuery.q === "string" ? rawQuery.q : undefined });
  if (!parsed.success) throw new InvalidInputError("search text is at most 300 characters");
  const q = parsed.data.q ?? "";
  const all = await deps.memories.list({ limit: MEMORY_PAGE });
  const needle = q.toLowerCase();
  const shown = needle ? all.filter((m) => factText(m.fact).toLowerCase().includes(needle)) : all;
  return {
    title: "Memories",
    nav: "memories",
    q,
    read: all.length,
    full: all.length >= MEMORY_PAGE,
    pageLimit: MEMORY_PAGE,
    memories: shown.map(memoryRow),
  };
}

function memoryRow(m: Memory) {
  return {
    id: m.id,
    scope: m.scope,
    fact: factText(m.fact),
    kind: m.fact.kind,
    score: m.score,
    useCount: m.useCount,
    embeddingSpace: m.embeddingSpace,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
    lastUsedAt: m.lastUsedAt ?? "",
    sourceInvestigationId: /^inv-[a-f0-9]{24}$/.test(m.source.investigationId)
      ? m.source.investigationId
      : "",
    sourceSessionId: m.source.sessionId,
  };
}

import type { ThinkingLevel } from "../config/model-settings.js";

/**
 * The Gemini generation models ferret can place, and what each takes. Every generation-specific
 * rule (thinking parameter and levels, dummy thought signatures, thinking room in the output cap,
 * temperature) is read from here after an id is resolved, never guessed from the id's spelling:
 * Google's aliases (`gemini-flash-latest`) carry no generation in their name, and a pattern that
 * does not match one switches every Gemini 3 rule off.
 *
 * Sources, read December 2026 (docs/decisions/0047 lists them with what each gave):
 * - MODELS: https://ai.google.dev/gemini-api/docs/models (stable and preview ids; the `-latest`
 *   aliases in the models list, each pointing at the newest release of its variation);
 * - DEPRECATIONS: https://ai.google.dev/gemini-api/docs/deprecations (release and earliest
 *   shutdown dates; requests to a deprecated id routed to its replacement, billed at its rates);
 * - VERTEX: https://cloud.google.com/vertex-ai/generative-ai/docs/learn/model-versions (retirement
 *   dates on Vertex; a retired id answers 404; the earlier of the two backends' dates counts);
 * - GEMINI_3: https://ai.google.dev/gemini-api/docs/gemini-3 and the 3.x developer guides (thinking
 *   levels per model: 3 Pro LOW/HIGH, 3.1 Pro and 3.7/3.8 Flash LOW/MEDIUM/HIGH, the earlier
 *   Flash and Flash-Lite models all four).
 */

export type Tier = "pro" | "flash" | "flash-lite";

export interface ModelFacts {
  /** The id as the models list spells it. */
  id: string;
  generation: number;
  tier: Tier;
  /** How thinking is set: a level (Gemini 3), a token budget (2.5), or not at all (2.0). */
  thinking: "level" | "budget" | "none";
  /** The levels a "level" model accepts, upper case as on the wire. */
  levels: readonly Uppercase<ThinkingLevel>[];
  /** Earliest announced shutdown (YYYY-MM-DD) over both backends; undefined when none is announced. */
  shutdown?: string;
  /** Google answers requests to this id with another model (deprecated ids), billed at its rates. */
  routedTo?: string;
  /** What Google recommends instead, when the id is deprecated. */
  replacement?: string;
}

const ALL = ["MINIMAL", "LOW", "MEDIUM", "HIGH"] as const;
const NO_MINIMAL = ["LOW", "MEDIUM", "HIGH"] as const;

const level = (
  id: string,
  tier: Tier,
  levels: readonly Uppercase<ThinkingLevel>[],
  extra: Partial<ModelFacts> = {},
): ModelFacts => ({ id, generation: 3, tier, thinking: "level", levels, ...extra });
const budget = (id: string, tier: Tier, extra: Partial<ModelFacts> = {}): ModelFacts => ({
  id,
  generation: 2,
  tier,
  thinking: "budget",
  levels: [],
  ...extra,
});
const none = (id: string, tier: Tier, extra: Partial<ModelFacts> = {}): ModelFacts => ({
  id,
  generation: 2,
  tier,
  thinking: "none",
  levels: [],
  ...extra,
});

/** MODELS and DEPRECATIONS (dates), GEMINI_3 (levels). */
const MODELS: readonly ModelFacts[] = [
  level("gemini-3.8-flash", "flash", NO_MINIMAL),
  level("gemini-3.7-flash", "flash", NO_MINIMAL),
  // Levels not listed on the pages read: MINIMAL is left out, LOW is accepted by every Gemini 3.
  level("gemini-3.6-flash", "flash", NO_MINIMAL),
  // DEPRECATIONS / the changelog: requests to gemini-3.5-flash are answered by gemini-3.6-flash.
  level("gemini-3.5-flash", "flash", ALL, { routedTo: "gemini-3.6-flash", replacement: "gemini-3.8-flash" }),
  level("gemini-3.5-flash-lite", "flash-lite", ALL),
  level("gemini-3.1-flash-lite", "flash-lite", ALL, {
    shutdown: "2027-05-07",
    replacement: "gemini-3.5-flash-lite",
  }),
  level("gemini-3-flash-preview", "flash", ALL),
  level("gemini-3.1-pro-preview", "pro", NO_MINIMAL),
  level("gemini-3-pro-preview", "pro", ["LOW", "HIGH"], {
    shutdown: "2026-03-09",
    replacement: "gemini-3.1-pro-preview",
  }),
  // 2.5: VERTEX retires them first (2026-10-16); the Developer API routes them from 2026-12-01.
  budget("gemini-2.5-pro", "pro", {
    shutdown: "2026-10-16",
    routedTo: "gemini-3.8-flash",
    replacement: "gemini-3.8-flash",
  }),
  budget("gemini-2.5-flash", "flash", {
    shutdown: "2026-10-16",
    routedTo: "gemini-3.5-flash-lite",
    replacement: "gemini-3.8-flash",
  }),
  budget("gemini-2.5-flash-lite", "flash-lite", {
    shutdown: "2026-10-16",
    replacement: "gemini-3.5-flash-lite",
  }),
  none("gemini-2.0-flash", "flash", { shutdown: "2026-06-01", replacement: "gemini-3.8-flash" }),
  none("gemini-2.0-flash-001", "flash", { shutdown: "2026-06-01", replacement: "gemini-3.8-flash" }),
  none("gemini-2.0-flash-lite", "flash-lite", {
    shutdown: "2026-06-01",
    replacement: "gemini-3.5-flash-lite",
  }),
  none("gemini-2.0-flash-lite-001", "flash-lite", {
    shutdown: "2026-06-01",
    replacement: "gemini-3.5-flash-lite",
  }),
];

/**
 * MODELS: the `-latest` aliases point at the newest release of their variation and move without
 * a change on our side, so each resolves to a family, not a fixed model: the newest id of its tier
 * decides the generation, and its levels are the ones every Gemini 3 model of that tier takes
 * (MINIMAL is not among them for Pro and the current Flash). What actually answered is read from
 * each response's `modelVersion` and recorded.
 */
const ALIASES: Readonly<Record<string, { tier: Tier; levels: readonly Uppercase<ThinkingLevel>[] }>> = {
  "gemini-flash-latest": { tier: "flash", levels: NO_MINIMAL },
  "gemini-flash-lite-latest": { tier: "flash-lite", levels: ALL },
  "gemini-pro-latest": { tier: "pro", levels: ["LOW", "HIGH"] },
};

/** Embedding ids ferret may be configured with (VERTEX, "Latest stable models"; no retirement announced). */
const EMBEDDING_MODELS: ReadonlySet<string> = new Set(["gemini-embedding-001", "text-embedding-005"]);

const BY_ID = new Map(MODELS.map((m) => [m.id, m]));

/** The newest known model of a tier (first in MODELS order, which lists the newest first). */
function newestOf(tier: Tier): ModelFacts {
  const found = MODELS.find((m) => m.tier === tier && m.generation >= 3 && !m.routedTo && !m.shutdown);
  if (!found) throw new Error(`the model catalog has no current ${tier} model`);
  return found;
}

/** "models/x", "publishers/google/models/x", "projects/…/models/x" → "x". */
export function bareModelId(model: string): string {
  return model.replace(/^.*\//, "");
}

export type Resolution = { ok: true; facts: ModelFacts; alias?: string } | { ok: false; reason: string };

/**
 * What a configured generation model id is: a listed id, a dated stable version of one
 * ("gemini-2.0-flash-001" style three-digit suffix, VERTEX), or an alias resolved to its family.
 * Anything else is refused with the reason, so a misspelt id is not sent without its rules.
 */
export function resolveModel(model: string): Resolution {
  const id = bareModelId(model);
  const listed = BY_ID.get(id) ?? BY_ID.get(id.replace(/-\d{3}$/, ""));
  if (listed) return { ok: true, facts: listed };
  const alias = ALIASES[id];
  if (alias) {
    const newest = newestOf(alias.tier);
    return { ok: true, alias: id, facts: { ...newest, id, levels: alias.levels } };
  }
  return {
    ok: false,
    reason: `${id} is not a Gemini model ferret knows (known: ${[...BY_ID.keys(), ...Object.keys(ALIASES)].join(", ")}); its thinking and signature rules cannot be placed`,
  };
}

/** Facts of a resolvable id, undefined otherwise (the caller applies no generation rule). */
export function modelFacts(model: string): ModelFacts | undefined {
  const resolved = resolveModel(model);
  return resolved.ok ? resolved.facts : undefined;
}

function knownEmbeddingModel(model: string): boolean {
  return EMBEDDING_MODELS.has(bareModelId(model));
}

/** Why a configured id cannot be used (doctor, preflight, start-up log); undefined when it can. */
export function unplacedModel(model: string, embedding: boolean): string | undefined {
  if (embedding) {
    return knownEmbeddingModel(model)
      ? undefined
      : `${bareModelId(model)} is not an embedding model ferret knows (known: ${[...EMBEDDING_MODELS].join(", ")})`;
  }
  const resolved = resolveModel(model);
  return resolved.ok ? undefined : resolved.reason;
}

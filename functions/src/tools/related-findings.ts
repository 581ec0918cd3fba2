import { z } from "zod";
import { type Verdict, VerdictSchema } from "../domain/conclusion.js";
import { errorMessage, isRetryable, ToolFailedError } from "../domain/errors.js";
import { type Finding, findingIocs } from "../domain/finding/finding.js";
import { type Investigation, settledVerdictField } from "../domain/investigation.js";
import type { JsonObject } from "../domain/json.js";
import { EMBEDDING_DIMENSIONS, type Model } from "../model/port.js";
import type { InvestigationStore } from "../ports/investigation-store.js";
import { type AnyTool, defineTool, type ToolContext } from "./port.js";

/** What is kept next to a finding's vector: enough to show a match without another read. */
export const FindingEmbeddingMetaSchema = z.object({
  category: z.string(),
  resource: z.string(),
  verdict: VerdictSchema.optional(),
  createdAt: z.iso.datetime(),
});
export type FindingEmbeddingMeta = z.infer<typeof FindingEmbeddingMetaSchema>;

export interface SimilarFinding extends FindingEmbeddingMeta {
  id: string;
  /** Cosine similarity in [-1, 1]; 1 is the same direction. */
  similarity: number;
}

/**
 * Finding vectors, one per investigation. `nearest` returns at most `limit` findings whose
 * cosine similarity to `vector` is at least `minSimilarity`, most similar first, never
 * `excludeId`. (Stores that speak distances use distance = 1 − similarity.)
 */
export interface FindingEmbeddings {
  upsert(id: string, vector: readonly number[], meta: FindingEmbeddingMeta): Promise<void>;
  nearest(
    vector: readonly number[],
    options: { limit: number; minSimilarity: number; excludeId?: string },
  ): Promise<SimilarFinding[]>;
}

export const RELATED_FINDINGS_DEFAULTS = {
  limit: 10,
  maxLimit: 25,
  /** Below this cosine similarity two findings are not called similar. */
  minSimilarity: 0.8,
  /** IOCs of the current finding searched one by one; the rest are left out. */
  maxIocs: 10,
  /** Longest description excerpt that goes into the embedded text. */
  descriptionChars: 400,
} as const;

const RELATIONS = ["resource", "principal", "ioc", "similar"] as const;
type Relation = (typeof RELATIONS)[number];

const InputSchema = z.object({
  by: z
    .array(z.enum(RELATIONS))
    .min(1)
    .max(RELATIONS.length)
    .optional()
    .describe(
      "How to relate: resource (same resource), principal (same acting principal), ioc (shares an IOC), similar (same kind of finding by embedding). Default: all.",
    ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(RELATED_FINDINGS_DEFAULTS.maxLimit)
    .optional()
    .describe(`Most findings to return (default ${RELATED_FINDINGS_DEFAULTS.limit}).`),
});

/**
 * The text a finding is embedded as: what kind of activity it is (category, class,
 * tactics, techniques, API method, process names, the start of the description), not
 * which entities it names. Resource, principal and IOC matches are exact lookups of their
 * own; "similar" is meant to find the same kind of finding elsewhere. The finding text is
 * attacker-influenced, but it is only embedded here, never followed.
 */
export function findingEmbeddingText(finding: Finding): string {
  const lines = [
    `category: ${finding.category}`,
    `class: ${finding.findingClass}; severity: ${finding.severity}`,
    finding.resource.type ? `resource type: ${finding.resource.type}` : undefined,
    finding.mitre.primaryTactic || finding.mitre.tactics.length > 0
      ? `tactics: ${[finding.mitre.primaryTactic, ...finding.mitre.tactics].filter(Boolean).join(", ")}`
      : undefined,
    finding.mitre.techniques.length > 0 ? `techniques: ${finding.mitre.techniques.join(", ")}` : undefined,
    finding.access?.serviceName || finding.access?.methodName
      ? `api: ${[finding.access.serviceName, finding.access.methodName].filter(Boolean).join(" ")}`
      : undefined,
    finding.processes.length > 0
      ? `processes: ${[...new Set(finding.processes.map((p) => p.name ?? p.binaryPath?.split("/").at(-1)).filter(Boolean))].slice(0, 10).join(", ")}`
      : undefined,
    finding.iamBindings.length > 0
      ? `iam: ${finding.iamBindings
          .slice(0, 5)
          .map((b) => `${b.action ?? ""} ${b.role ?? ""}`.trim())
          .join(", ")}`
      : undefined,
    finding.description
      ? `description: ${finding.description.slice(0, RELATED_FINDINGS_DEFAULTS.descriptionChars)}`
      : undefined,
  ];
  return lines.filter((l): l is string => l !== undefined).join("\n");
}

type Embedder = Pick<Model, "embed">;

async function embedOne(embedder: Embedder, text: string, task: "RETRIEVAL_DOCUMENT" | "RETRIEVAL_QUERY") {
  const [vector] = await embedder.embed({ texts: [text], task, dimensions: EMBEDDING_DIMENSIONS });
  if (!vector) throw new ToolFailedError("related_findings", "the model returned no embedding", true);
  return vector;
}

/**
 * Writes the investigation's finding vector so later investigations can find it as
 * similar. Idempotent (one document per investigation); call it when the investigation is
 * created and again when it concludes, so the stored verdict follows the conclusion.
 */
export async function indexFindingEmbedding(
  deps: { embeddings: FindingEmbeddings; embedder: Embedder },
  investigation: Investigation,
): Promise<void> {
  const vector = await embedOne(
    deps.embedder,
    findingEmbeddingText(investigation.finding),
    "RETRIEVAL_DOCUMENT",
  );
  await deps.embeddings.upsert(investigation.id, vector, {
    category: investigation.finding.category,
    resource: investigation.finding.resource.name,
    ...settledVerdictField(investigation),
    createdAt: investigation.createdAt,
  });
}

export interface RelatedFindingsToolOptions {
  store: Pick<InvestigationStore, "findRelated">;
  embeddings: FindingEmbeddings;
  embedder: Embedder;
  minSimilarity?: number;
}

interface Match {
  id: string;
  category: string;
  resource: string;
  verdict?: Verdict;
  status?: string;
  createdAt: string;
  relatedBy: string[];
  /** Number of exact links (resource, principal, IOC); they rank above similarity. */
  links: number;
  similarity?: number;
}

function linksOf(
  inv: Investigation,
  current: { resource: string; principal: string | undefined; iocs: readonly string[] },
  by: ReadonlySet<Relation>,
): string[] {
  const reasons: string[] = [];
  if (by.has("resource") && current.resource && inv.finding.resource.name === current.resource)
    reasons.push("same resource");
  if (by.has("principal") && current.principal && inv.finding.access?.principalEmail === current.principal)
    reasons.push(`same principal ${current.principal}`);
  if (by.has("ioc")) {
    const theirs = new Set(inv.iocValues);
    const shared = current.iocs.filter((v) => theirs.has(v));
    if (shared.length > 0)
      reasons.push(
        `shares IOC ${shared.slice(0, 3).join(", ")}${shared.length > 3 ? ` (+${shared.length - 3} more)` : ""}`,
      );
  }
  return reasons;
}

function describeMatch(m: Match): JsonObject {
  return {
    id: m.id,
    category: m.category,
    resource: m.resource,
    ...(m.verdict ? { verdict: m.verdict } : {}),
    ...(m.status ? { status: m.status } : {}),
    createdAt: m.createdAt,
    relatedBy: m.relatedBy,
    ...(m.similarity !== undefined ? { similarity: Math.round(m.similarity * 1000) / 1000 } : {}),
  };
}

/**
 * Earlier investigations related to the current finding: the same resource, the same
 * acting principal, a shared IOC (exact lookups in the investigation store), or a similar
 * finding (cosine similarity of finding embeddings). The current investigation is never
 * part of the answer.
 */
export function createRelatedFindingsTool(options: RelatedFindingsToolOptions): AnyTool {
  const minSimilarity = options.minSimilarity ?? RELATED_FINDINGS_DEFAULTS.minSimilarity;
  return defineTool({
    name: "related_findings",
    readOnly: true,
    description:
      "Find other investigations (earlier or running) related to this finding: same resource, same acting principal, a shared IOC, or a similar finding " +
      `(embedding cosine similarity ≥ ${minSimilarity}). Returns each with its category, resource, verdict (when concluded), date and why it is related. ` +
      "Use it to spot repeat activity, campaigns across resources, or how similar findings were judged before.",
    input: InputSchema,
    async run(input, ctx: ToolContext) {
      const by = new Set<Relation>(input.by ?? RELATIONS);
      const limit = input.limit ?? RELATED_FINDINGS_DEFAULTS.limit;
      const self = ctx.investigationId;
      const finding = ctx.finding;
      const principal = finding.access?.principalEmail;
      const iocs = [...new Set(findingIocs(finding).map((i) => i.value))]
        .filter((v) => v !== principal)
        .slice(0, RELATED_FINDINGS_DEFAULTS.maxIocs);
      const current = { resource: finding.resource.name, principal, iocs };

      const lookups: Array<{ relation: Relation; run: () => Promise<Investigation[] | SimilarFinding[]> }> =
        [];
      const related = (query: Parameters<InvestigationStore["findRelated"]>[0]) => () =>
        options.store.findRelated(query);
      if (by.has("resource") && current.resource)
        lookups.push({
          relation: "resource",
          run: related({ resourceName: current.resource, excludeId: self, limit }),
        });
      if (by.has("principal") && principal)
        lookups.push({ relation: "principal", run: related({ principal, excludeId: self, limit }) });
      if (by.has("ioc"))
        for (const value of iocs)
          lookups.push({ relation: "ioc", run: related({ iocValue: value, excludeId: self, limit }) });
      if (by.has("similar"))
        lookups.push({
          relation: "similar",
          run: async () =>
            options.embeddings.nearest(
              await embedOne(options.embedder, findingEmbeddingText(finding), "RETRIEVAL_QUERY"),
              {
                limit,
                minSimilarity,
                excludeId: self,
              },
            ),
        });

      const settled = await Promise.allSettled(lookups.map((l) => l.run()));
      const matches = new Map<string, Match>();
      const failures: Array<{ relation: Relation; error: unknown }> = [];
      settled.forEach((outcome, k) => {
        const relation = lookups[k]!.relation;
        if (outcome.status === "rejected") {
          failures.push({ relation, error: outcome.reason });
          return;
        }
        for (const found of outcome.value) {
          if (found.id === self) continue;
          if ("similarity" in found) {
            const existing = matches.get(found.id);
            const reason = `similar finding (cosine similarity ${found.similarity.toFixed(2)})`;
            if (existing) {
              existing.similarity = found.similarity;
              existing.relatedBy.push(reason);
            } else {
              matches.set(found.id, {
                id: found.id,
                category: found.category,
                resource: found.resource,
                ...(found.verdict ? { verdict: found.verdict } : {}),
                createdAt: found.createdAt,
                relatedBy: [reason],
                links: 0,
                similarity: found.similarity,
              });
            }
            continue;
          }
          if (matches.get(found.id)?.links) continue; // linked already; reasons are complete
          const reasons = linksOf(found, current, by);
          if (reasons.length === 0) continue;
          const similar = matches.get(found.id);
          matches.set(found.id, {
            id: found.id,
            category: found.finding.category,
            resource: found.finding.resource.name,
            ...settledVerdictField(found),
            ...(found.status !== "concluded" ? { status: found.status } : {}),
            createdAt: found.createdAt,
            relatedBy: [...reasons, ...(similar?.relatedBy ?? [])],
            links: reasons.length,
            ...(similar?.similarity !== undefined ? { similarity: similar.similarity } : {}),
          });
        }
      });
      if (lookups.length > 0 && failures.length === lookups.length) {
        const first = failures[0]!.error;
        throw new ToolFailedError(
          "related_findings",
          errorMessage(first),
          failures.some((f) => isRetryable(f.error)),
          first,
        );
      }

      const ranked = [...matches.values()]
        .sort(
          (a, b) =>
            b.links - a.links ||
            (b.similarity ?? -2) - (a.similarity ?? -2) ||
            b.createdAt.localeCompare(a.createdAt) ||
            a.id.localeCompare(b.id),
        )
        .slice(0, limit);
      const warnings = failures.map((f) => `${f.relation} lookup failed: ${errorMessage(f.error)}`);
      return {
        ok: true,
        summary: summarize(ranked, [...by], minSimilarity, warnings),
        data: {
          searched: [...by],
          findings: ranked.map(describeMatch),
          ...(warnings.length > 0 ? { warnings } : {}),
        },
      };
    },
  });
}

function summarize(
  ranked: readonly Match[],
  by: readonly Relation[],
  minSimilarity: number,
  warnings: string[],
) {
  const tail = warnings.length > 0 ? ` (${warnings.join("; ")})` : "";
  if (ranked.length === 0)
    return `No other investigation is related by ${by.join(", ")}${by.includes("similar") ? ` (similarity ≥ ${minSimilarity})` : ""}.${tail}`;
  const verdicts = new Map<string, number>();
  for (const m of ranked)
    verdicts.set(m.verdict ?? "not concluded", (verdicts.get(m.verdict ?? "not concluded") ?? 0) + 1);
  const linked = ranked.filter((m) => m.links > 0).length;
  return (
    `${ranked.length} other investigation(s) related (${linked} by resource, principal or IOC; ${ranked.length - linked} only similar). ` +
    `Verdicts: ${[...verdicts].map(([v, n]) => `${n} ${v}`).join(", ")}.${tail}`
  );
}

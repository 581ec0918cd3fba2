import type { BriefRole } from "../agent/briefs.js";
import { FerretError } from "../domain/errors.js";
import { addUsage, type Usage, UsageSchema, ZERO_USAGE } from "../domain/results.js";
import type { EmbedRequest, GenerateRequest, GenerateResponse, Model } from "./port.js";

export interface Meter {
  /** generate calls that returned. */
  calls: number;
  /** generate calls that threw (they may still have cost quota). */
  failures: number;
  /** Includes what failed calls were billed (a refused or truncated answer reports its tokens). */
  usage: Usage;
}

export interface EmbedMeter {
  calls: number;
  failures: number;
  texts: number;
}

export interface Metered {
  model: Model;
  totals(): Meter;
  byRole(): Partial<Record<BriefRole, Meter>>;
  /** Which model actually answered: shows a fallback in benchmark and eval reports. */
  byModel(): Record<string, Meter>;
  embeddings(): EmbedMeter;
  reset(): void;
}

const emptyMeter = (): Meter => ({ calls: 0, failures: 0, usage: { ...ZERO_USAGE } });

/**
 * Counts what a Model did, per role and per answering model, for budgets, eval and
 * benchmarks. Readings are copies: a caller cannot corrupt the running totals.
 */
export function metered(model: Model): Metered {
  let total = emptyMeter();
  let roles = new Map<BriefRole, Meter>();
  let models = new Map<string, Meter>();
  let embeds: EmbedMeter = { calls: 0, failures: 0, texts: 0 };

  const bucket = <K>(map: Map<K, Meter>, key: K): Meter => {
    let meter = map.get(key);
    if (!meter) {
      meter = emptyMeter();
      map.set(key, meter);
    }
    return meter;
  };
  const record = (meters: Meter[], outcome: { response: GenerateResponse } | { error: unknown }) => {
    for (const meter of meters) {
      if ("error" in outcome) {
        meter.failures += 1;
        const billed = billedUsage(outcome.error);
        if (billed) meter.usage = addUsage(meter.usage, billed);
        continue;
      }
      meter.calls += 1;
      meter.usage = addUsage(meter.usage, outcome.response.usage);
    }
  };
  const copy = (meter: Meter): Meter => ({ ...meter, usage: { ...meter.usage } });

  const wrapped: Model = {
    get name() {
      return model.name;
    },
    get offline() {
      return model.offline;
    },
    async generate(request: GenerateRequest): Promise<GenerateResponse> {
      try {
        const response = await model.generate(request);
        record([total, bucket(roles, request.brief.role), bucket(models, response.model)], { response });
        return response;
      } catch (error) {
        record([total, bucket(roles, request.brief.role)], { error });
        throw error;
      }
    },
    async embed(request: EmbedRequest): Promise<number[][]> {
      try {
        const vectors = await model.embed(request);
        embeds = { ...embeds, calls: embeds.calls + 1, texts: embeds.texts + request.texts.length };
        return vectors;
      } catch (error) {
        embeds = { ...embeds, failures: embeds.failures + 1 };
        throw error;
      }
    },
  };

  return {
    model: wrapped,
    totals: () => copy(total),
    byRole: () => Object.fromEntries([...roles].map(([k, v]) => [k, copy(v)])),
    byModel: () => Object.fromEntries([...models].map(([k, v]) => [k, copy(v)])),
    embeddings: () => ({ ...embeds }),
    reset: () => {
      total = emptyMeter();
      roles = new Map();
      models = new Map();
      embeds = { calls: 0, failures: 0, texts: 0 };
    },
  };
}

/** The usage a failed call reported with its error (Gemini bills a blocked or cut-off answer). */
function billedUsage(error: unknown): Usage | undefined {
  if (!(error instanceof FerretError)) return undefined;
  const parsed = UsageSchema.safeParse(error.details?.usage);
  return parsed.success ? parsed.data : undefined;
}

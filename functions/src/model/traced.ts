import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOKEN_TYPE,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_TOKEN_TYPE_VALUE_INPUT,
  GEN_AI_TOKEN_TYPE_VALUE_OUTPUT,
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
} from "@opentelemetry/semantic-conventions/incubating";
import { addToCounter, type CounterSpec, type HistogramSpec, recordHistogram } from "../platform/meters.js";
import { inSpan } from "../platform/tracing.js";
import type { GenerateRequest, GenerateResponse, Model } from "./port.js";

/**
 * Each generate call as a span of the active role's span, with OpenTelemetry's GenAI semantic
 * conventions (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/): the operation,
 * the provider, the model asked for and the one that answered, tokens in and out, the finish
 * reason. The offline model's spans say so and carry no tokens (it has none). Never the prompt
 * or the answer: they hold finding fields and log rows.
 */
/**
 * The GenAI client metrics of the same conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-metrics/): a call's duration (its
 * count is the number of model calls) and its tokens by type, each with the role that asked,
 * which is the phase in ferret's terms (docs/decisions/0051). The boundaries are the ones the
 * conventions advise.
 */
const OPERATION_DURATION: HistogramSpec = {
  name: METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  description: "GenAI operation duration",
  unit: "s",
  boundaries: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92],
};
const TOKEN_USAGE: HistogramSpec = {
  name: METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
  description: "Number of input and output tokens used",
  unit: "{token}",
  boundaries: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864],
};

/**
 * The same calls and tokens as plain counts by role, for a dashboard's sums per phase (a
 * histogram's count and sum are not plotted as numbers in Cloud Monitoring).
 */
export const MODEL_CALLS: CounterSpec = {
  name: "ferret.model.calls",
  description: "model calls",
  unit: "{call}",
};
export const MODEL_TOKENS: CounterSpec = {
  name: "ferret.model.tokens",
  description: "model tokens, by type (input or output)",
  unit: "{token}",
};

export function traced(model: Model): Model {
  const provider = model.offline ? "ferret.offline" : "gcp.gemini";
  return {
    get name() {
      return model.name;
    },
    get offline() {
      return model.offline;
    },
    generate: (request: GenerateRequest): Promise<GenerateResponse> => {
      // The span's attributes and the metrics' are the same set.
      const common = {
        [ATTR_GEN_AI_OPERATION_NAME]: "chat",
        [ATTR_GEN_AI_PROVIDER_NAME]: provider,
        [ATTR_GEN_AI_REQUEST_MODEL]: model.name,
        "ferret.role": request.brief.role,
      };
      return inSpan(`chat ${model.name}`, common, async (span) => {
        const started = performance.now();
        let response: GenerateResponse;
        try {
          response = await model.generate(request);
        } catch (error) {
          recordHistogram(OPERATION_DURATION, (performance.now() - started) / 1000, {
            ...common,
            "error.type": error instanceof Error ? error.name : "error",
          });
          throw error;
        }
        recordHistogram(OPERATION_DURATION, (performance.now() - started) / 1000, {
          ...common,
          [ATTR_GEN_AI_RESPONSE_MODEL]: response.model,
        });
        addToCounter(MODEL_CALLS, 1, {
          "ferret.role": request.brief.role,
          "ferret.offline": model.offline,
        });
        // The offline model has no tokens: it records none rather than zeros.
        if (!model.offline) {
          recordHistogram(TOKEN_USAGE, response.usage.inputTokens, {
            ...common,
            [ATTR_GEN_AI_TOKEN_TYPE]: GEN_AI_TOKEN_TYPE_VALUE_INPUT,
          });
          recordHistogram(TOKEN_USAGE, response.usage.outputTokens, {
            ...common,
            [ATTR_GEN_AI_TOKEN_TYPE]: GEN_AI_TOKEN_TYPE_VALUE_OUTPUT,
          });
          for (const [type, tokens] of [
            [GEN_AI_TOKEN_TYPE_VALUE_INPUT, response.usage.inputTokens],
            [GEN_AI_TOKEN_TYPE_VALUE_OUTPUT, response.usage.outputTokens],
          ] as const)
            addToCounter(MODEL_TOKENS, tokens, {
              "ferret.role": request.brief.role,
              [ATTR_GEN_AI_TOKEN_TYPE]: type,
            });
        }
        span.setAttributes({
          [ATTR_GEN_AI_RESPONSE_MODEL]: response.model,
          ...(model.offline
            ? {}
            : {
                [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: response.usage.inputTokens,
                [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: response.usage.outputTokens,
              }),
          ...(response.finishReason
            ? { [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: [response.finishReason] }
            : {}),
        });
        return response;
      });
    },
    embed: (request) => model.embed(request),
  };
}

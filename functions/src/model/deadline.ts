import type { EmbedRequest, GenerateRequest, GenerateResponse, Model } from "./port.js";

/**
 * The same model, with every call bound to `signal` (a step's deadline): the HTTP request is
 * aborted and retry waits stop when it fires, instead of running on after the step gave up.
 * A request's own signal, if any, still counts.
 */
export function withDeadline(model: Model, signal: AbortSignal, deadlineAt?: number): Model {
  const bind = <R extends { signal?: AbortSignal }>(request: R): R => ({
    ...request,
    signal: request.signal ? AbortSignal.any([request.signal, signal]) : signal,
  });
  // Generate requests also learn when the deadline falls, so retry waits are sized to what remains.
  const bindGenerate = (request: GenerateRequest): GenerateRequest => {
    const bound = bind(request);
    const earliest = Math.min(
      request.deadlineAt ?? Number.POSITIVE_INFINITY,
      deadlineAt ?? Number.POSITIVE_INFINITY,
    );
    return Number.isFinite(earliest) ? { ...bound, deadlineAt: earliest } : bound;
  };
  return {
    get name() {
      return model.name;
    },
    get offline() {
      return model.offline;
    },
    generate: (request: GenerateRequest): Promise<GenerateResponse> => model.generate(bindGenerate(request)),
    embed: (request: EmbedRequest): Promise<number[][]> => model.embed(bind(request)),
  };
}

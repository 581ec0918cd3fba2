import type { EmbedRequest, GenerateRequest, GenerateResponse, Model } from "./port.js";

/**
 * The same model, with every call bound to `signal` (a step's deadline): the HTTP request is
 * aborted and retry waits stop when it fires, instead of running on after the step gave up.
 * A request's own signal, if any, still counts.
 */
export function withDeadline(model: Model, signal: AbortSignal): Model {
  const bind = <R extends { signal?: AbortSignal }>(request: R): R => ({
    ...request,
    signal: request.signal ? AbortSignal.any([request.signal, signal]) : signal,
  });
  return {
    get name() {
      return model.name;
    },
    get offline() {
      return model.offline;
    },
    generate: (request: GenerateRequest): Promise<GenerateResponse> => model.generate(bind(request)),
    embed: (request: EmbedRequest): Promise<number[][]> => model.embed(bind(request)),
  };
}

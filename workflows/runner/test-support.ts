// Shared fixtures for the runner's tests (kept out of *.test.ts so it is not run as a suite).
import assert from "node:assert/strict";
import {
  type HttpRequest,
  type HttpResponse,
  type HttpTransport,
  loadWorkflow,
  type RunOptions,
  runWorkflow,
  WorkflowError,
} from "./index.js";

/** A clock that only moves when the workflow sleeps, recording every requested delay. */
export function fakeClock(startMs = 1_700_000_000_000): {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  sleeps: number[];
} {
  let current = startMs;
  const sleeps: number[] = [];
  return {
    now: () => current,
    sleep: async (ms) => {
      sleeps.push(ms);
      current += ms;
    },
    sleeps,
  };
}

export function run(yaml: string, args?: unknown, options: Partial<RunOptions> = {}): Promise<unknown> {
  return runWorkflow(loadWorkflow(yaml), args, { env: {}, ...options });
}

/** Awaits a run that must fail and returns the Workflows error value it carried. */
export async function runError(
  yaml: string,
  args?: unknown,
  options: Partial<RunOptions> = {},
): Promise<unknown> {
  const err = await run(yaml, args, options).then(
    (value) => assert.fail(`expected the workflow to fail, it returned ${JSON.stringify(value)}`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof WorkflowError, `expected WorkflowError, got ${String(err)}`);
  return err.payload;
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export function jsonResponse(status: number, body: unknown): HttpResponse {
  return { status, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

/** A transport answering from a queue; each entry is a response or an error to throw. */
export function scriptedTransport(
  script: (HttpResponse | Error)[],
): HttpTransport & { requests: HttpRequest[] } {
  const requests: HttpRequest[] = [];
  const transport = async (request: HttpRequest): Promise<HttpResponse> => {
    requests.push(request);
    const next = script.shift();
    if (next === undefined) throw new Error(`unexpected request ${request.method} ${request.url}`);
    if (next instanceof Error) throw next;
    return next;
  };
  return Object.assign(transport, { requests });
}

/** Lets pending promise callbacks run, so concurrently started work can reach its next await. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

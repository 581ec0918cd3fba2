import { RaisedError, tagged } from "../errors.js";
import { evaluateTemplate } from "../expression/template.js";
import type { RetrySpec, TryStep } from "../loader/ast.js";
import { typeName, type WfValue } from "../values.js";
import type { Completion, Executor, Frame } from "./executor.js";
import {
  type Backoff,
  backoffDelayMs,
  checkBackoff,
  defaultRetryPredicate,
  nonIdempotentRetryPredicate,
} from "./retry.js";
import type { Scope } from "./scope.js";

/**
 * try/retry/except: the whole try block is re-run while the predicate accepts the
 * error and retries remain, sleeping per the backoff between attempts; then the
 * except block (if any) handles the last error. Only errors raised by the workflow
 * are handled: a passed execution deadline is not catchable.
 */
export async function runTry(step: TryStep, exec: Executor, scope: Scope, frame: Frame): Promise<Completion> {
  let backoff: Backoff | null = null;
  for (let retries = 0; ; retries++) {
    try {
      return await exec.execList(step.body, scope, frame);
    } catch (err) {
      if (!(err instanceof RaisedError)) throw err;
      if (step.retry) {
        backoff ??= evaluateBackoff(step.retry, exec, scope);
        if (retries < backoff.maxRetries && (await shouldRetry(step.retry, err.value, exec, frame))) {
          await exec.ctx.sleep(backoffDelayMs(backoff, retries));
          continue;
        }
      }
      if (!step.except) throw err;
      if (step.except.as) scope.assign(step.except.as, err.value, `${step.path}.except.as`);
      return exec.execList(step.except.body, scope, frame);
    }
  }
}

function evaluateBackoff(retry: RetrySpec, exec: Executor, scope: Scope): Backoff {
  const env = exec.env(scope);
  return checkBackoff(
    evaluateTemplate(retry.maxRetries, env),
    evaluateTemplate(retry.initialDelay, env),
    evaluateTemplate(retry.maxDelay, env),
    evaluateTemplate(retry.multiplier, env),
  );
}

async function shouldRetry(retry: RetrySpec, error: WfValue, exec: Executor, frame: Frame): Promise<boolean> {
  const { predicate } = retry;
  if (predicate.kind === "builtin") {
    return predicate.name === "http.default_retry_predicate"
      ? defaultRetryPredicate(error)
      : nonIdempotentRetryPredicate(error);
  }
  // The predicate receives the error as its first parameter (checked at load time).
  const [param] = exec.paramNames(predicate.name);
  const verdict = await exec.callSubworkflow(predicate.name, new Map([[param ?? "", error]]), frame);
  if (typeof verdict !== "boolean") {
    throw tagged(
      "TypeError",
      `retry predicate ${predicate.name} must return a boolean, got ${typeName(verdict)}`,
    );
  }
  return verdict;
}

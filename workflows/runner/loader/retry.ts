import { InvalidWorkflowError } from "../errors.js";
import { exprDottedName, parseExpression } from "../expression/parse.js";
import { compileTemplate, expressionSource, type Template } from "../expression/template.js";
import type { WfValue } from "../values.js";
import type { RetryPredicate, RetrySpec } from "./ast.js";
import { checkKeys, expectMap, required } from "./shape.js";
import type { ParseContext } from "./step-parts.js";

const constant = (value: WfValue): Template => ({ kind: "constant", value });

// retry.default_backoff: 1 s initial delay, 60 s cap, multiplier 1.25.
// Both http.default_retry policies use it with max_retries 5.
const DEFAULT_BACKOFF = {
  maxRetries: constant(5),
  initialDelay: constant(1),
  maxDelay: constant(60),
  multiplier: constant(1.25),
};

const NAMED_POLICIES: Record<string, RetrySpec> = {
  "http.default_retry": {
    predicate: { kind: "builtin", name: "http.default_retry_predicate" },
    ...DEFAULT_BACKOFF,
  },
  "http.default_retry_non_idempotent": {
    predicate: { kind: "builtin", name: "http.default_retry_predicate_non_idempotent" },
    ...DEFAULT_BACKOFF,
  },
};

/** Resolves `${some.name}` to "some.name", or null when the value is not such a reference. */
function reference(raw: WfValue, path: string): string | null {
  const source = expressionSource(raw);
  return source === null ? null : exprDottedName(parseExpression(source, path));
}

export function parseRetry(raw: WfValue, path: string, ctx: ParseContext): RetrySpec {
  const named = reference(raw, path);
  if (named !== null) {
    const policy = NAMED_POLICIES[named];
    if (!policy) throw new InvalidWorkflowError(path, `'${named}' is not a retry policy`);
    return policy;
  }
  const body = expectMap(raw, path, "retry");
  checkKeys(body, ["predicate", "max_retries", "backoff"], path);
  const backoffPath = `${path}.backoff`;
  const backoff = expectMap(required(body, "backoff", path), backoffPath, "backoff");
  checkKeys(backoff, ["initial_delay", "max_delay", "multiplier"], backoffPath);
  return {
    predicate: parsePredicate(required(body, "predicate", path), `${path}.predicate`, ctx),
    maxRetries: compileTemplate(required(body, "max_retries", path), `${path}.max_retries`),
    initialDelay: compileTemplate(
      required(backoff, "initial_delay", backoffPath),
      `${backoffPath}.initial_delay`,
    ),
    maxDelay: compileTemplate(required(backoff, "max_delay", backoffPath), `${backoffPath}.max_delay`),
    multiplier: compileTemplate(required(backoff, "multiplier", backoffPath), `${backoffPath}.multiplier`),
  };
}

function parsePredicate(raw: WfValue, path: string, ctx: ParseContext): RetryPredicate {
  const name = reference(raw, path);
  if (name === "http.default_retry_predicate" || name === "http.default_retry_predicate_non_idempotent") {
    return { kind: "builtin", name };
  }
  if (name !== null && ctx.subworkflows.has(name)) return { kind: "subworkflow", name };
  throw new InvalidWorkflowError(
    path,
    "predicate must reference http.default_retry_predicate, http.default_retry_predicate_non_idempotent or a subworkflow",
  );
}

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "@google/genai";
import {
  FerretError,
  ModelOutputError,
  ModelUnavailableError,
  TokenLimitError,
} from "../../../functions/src/domain/errors.js";
import {
  classifyProviderError,
  isTokenLimitError,
  ProviderUnavailableError,
  parseTokenLimit,
  RequestRejectedError,
} from "../../../functions/src/model/errors.js";

/** What @google/genai throws for a non-OK JSON response: the body, stringified, as message. */
const apiError = (status: number, body: unknown) => new ApiError({ message: JSON.stringify(body), status });

describe("classifyProviderError: token limits", () => {
  it("Gemini Developer API (API key): parses both numbers", () => {
    const error = classifyProviderError(
      apiError(400, {
        error: {
          code: 400,
          message: "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
          status: "INVALID_ARGUMENT",
        },
      }),
    );
    assert.ok(error instanceof TokenLimitError);
    assert.equal(error.inputTokens, 1_200_293);
    assert.equal(error.maxTokens, 1_048_576);
    assert.equal(error.retryable, false);
    assert.equal(error.code, "token_limit");
    assert.match(error.message, /^Gemini 400 INVALID_ARGUMENT: The input token count/);
  });

  it("Vertex AI: 'Unable to submit request because the input token count is N but model only supports up to M'", () => {
    const error = classifyProviderError(
      apiError(400, {
        error: {
          code: 400,
          message:
            "Unable to submit request because the input token count is 1251952 but model only supports up to 1048576. Reduce the input token count and try again. You can also use the CountTokens API to calculate prompt token count and billable characters. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/learn/models",
          status: "INVALID_ARGUMENT",
        },
      }),
    );
    assert.ok(error instanceof TokenLimitError);
    assert.equal(error.inputTokens, 1_251_952);
    assert.equal(error.maxTokens, 1_048_576);
  });

  it("Vertex AI: array-wrapped body with errors[] and the smaller regional window", () => {
    const message = "The input token count (154364) exceeds the maximum number of tokens allowed (131072).";
    const error = classifyProviderError(
      apiError(400, [
        {
          error: {
            code: 400,
            message,
            errors: [{ message, domain: "global", reason: "badRequest" }],
            status: "INVALID_ARGUMENT",
          },
        },
      ]),
    );
    assert.ok(error instanceof TokenLimitError);
    assert.deepEqual([error.inputTokens, error.maxTokens], [154_364, 131_072]);
  });

  it("Vertex AI: count omitted, limit without parentheses", () => {
    const error = classifyProviderError(
      apiError(400, {
        error: {
          code: 400,
          message: "The input token count exceeds the maximum number of tokens allowed 1048576.",
          status: "INVALID_ARGUMENT",
        },
      }),
    );
    assert.ok(error instanceof TokenLimitError);
    assert.equal(error.inputTokens, undefined);
    assert.equal(error.maxTokens, 1_048_576);
  });

  it("a proxy that nests the whole provider body as its message", () => {
    const inner = JSON.stringify({
      error: {
        code: 400,
        message: "The input token count (3475108) exceeds the maximum number of tokens allowed (1048576).",
        status: "INVALID_ARGUMENT",
      },
    });
    const error = classifyProviderError(
      apiError(400, { error: { message: inner, code: 400, status: "Bad Request" } }),
    );
    assert.ok(error instanceof TokenLimitError);
    assert.deepEqual([error.inputTokens, error.maxTokens], [3_475_108, 1_048_576]);
  });

  it("parseTokenLimit ignores unrelated 400s", () => {
    assert.equal(parseTokenLimit('Invalid JSON payload received. Unknown name "foo"'), undefined);
  });

  it("isTokenLimitError accepts ours and raw provider errors", () => {
    assert.equal(isTokenLimitError(new TokenLimitError("x", 1, 2)), true);
    assert.equal(
      isTokenLimitError(
        apiError(400, {
          error: {
            code: 400,
            message: "The input token count (5) exceeds the maximum number of tokens allowed (4).",
          },
        }),
      ),
      true,
    );
    assert.equal(isTokenLimitError(new ModelUnavailableError("503")), false);
    assert.equal(isTokenLimitError(new Error("boom")), false);
  });
});

describe("classifyProviderError: unavailable", () => {
  it("Developer API 429 with RetryInfo keeps the delay", () => {
    const error = classifyProviderError(
      apiError(429, {
        error: {
          code: 429,
          message: "You exceeded your current quota, please check your plan and billing details.",
          status: "RESOURCE_EXHAUSTED",
          details: [
            {
              "@type": "type.googleapis.com/google.rpc.QuotaFailure",
              violations: [
                { quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests" },
              ],
            },
            { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "37s" },
          ],
        },
      }),
    );
    assert.ok(error instanceof ProviderUnavailableError);
    assert.ok(error instanceof ModelUnavailableError);
    assert.equal(error.retryable, true);
    assert.equal(error.httpStatus, 429);
    assert.equal(error.retryAfterMs, 37_000);
  });

  it("Vertex 429, 500, 502, 503, 504 (JSON and plain-text bodies) are retryable", () => {
    const cases: Array<[number, unknown]> = [
      [
        429,
        {
          error: {
            code: 429,
            message:
              "Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.",
            status: "RESOURCE_EXHAUSTED",
          },
        },
      ],
      [500, { error: { code: 500, message: "An internal error has occurred.", status: "INTERNAL" } }],
      [502, { error: { code: 502, message: "<html>Bad Gateway</html>", status: "Bad Gateway" } }],
      [
        503,
        {
          error: {
            code: 503,
            message: "The model is overloaded. Please try again later.",
            status: "UNAVAILABLE",
          },
        },
      ],
      [
        504,
        {
          error: {
            code: 504,
            message: "Deadline expired before operation could complete.",
            status: "DEADLINE_EXCEEDED",
          },
        },
      ],
    ];
    for (const [status, body] of cases) {
      const error = classifyProviderError(apiError(status, body));
      assert.ok(error instanceof ProviderUnavailableError, `status ${status}`);
      assert.equal(error.httpStatus, status);
      assert.equal(error.retryAfterMs, undefined);
    }
  });

  it("network failures and timeouts are retryable", () => {
    const refused = new TypeError("fetch failed", {
      cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }),
    });
    const classified = classifyProviderError(refused);
    assert.ok(classified instanceof ModelUnavailableError);
    assert.equal(classified.message, "Gemini unreachable: ECONNREFUSED");

    const aborted = classifyProviderError(new DOMException("This operation was aborted", "AbortError"));
    assert.ok(aborted instanceof ModelUnavailableError);
    assert.match(aborted.message, /timed out/);

    assert.ok(
      classifyProviderError(new SyntaxError("Unexpected end of JSON input")) instanceof ModelUnavailableError,
    );
  });
});

describe("classifyProviderError: not retryable", () => {
  it("auth, permission and unknown model are configuration errors", () => {
    const cases: Array<[number, unknown]> = [
      [
        400,
        {
          error: {
            code: 400,
            message: "API key not valid. Please pass a valid API key.",
            status: "INVALID_ARGUMENT",
            details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" }],
          },
        },
      ],
      [
        403,
        {
          error: {
            code: 403,
            message: "Permission 'aiplatform.endpoints.predict' denied on resource",
            status: "PERMISSION_DENIED",
          },
        },
      ],
    ];
    for (const [status, body] of cases) {
      const error = classifyProviderError(apiError(status, body));
      assert.ok(error instanceof FerretError);
      assert.equal(error.code, "config", `status ${status}`);
      assert.equal(error.retryable, false);
      assert.equal(error.details?.httpStatus, status);
    }
  });

  it("a 400 INVALID_ARGUMENT is ferret's own bug: not retried, but unavailable so the offline model takes over", () => {
    const error = classifyProviderError(
      apiError(400, {
        error: {
          code: 400,
          message:
            "Invalid JSON payload received. Unknown name \"foo\" at 'generation_config': Cannot find field.",
          status: "INVALID_ARGUMENT",
        },
      }),
    );
    assert.ok(error instanceof RequestRejectedError);
    assert.ok(error instanceof ModelUnavailableError, "withFallback diverts on it");
    assert.equal(error.retryable, false);
    assert.equal(error.final, "request_rejected");
    assert.equal(error.ferretBug, true);
    assert.match(error.message, /a ferret bug/);
    assert.match(error.providerMessage, /Unknown name "foo"/);
  });

  it("other 4xx stay invalid input (a precondition the user must fix is not ferret's bug)", () => {
    const error = classifyProviderError(
      apiError(400, {
        error: {
          code: 400,
          message: "User location is not supported for the API use.",
          status: "FAILED_PRECONDITION",
        },
      }),
    );
    assert.equal(error.code, "invalid_input");
    assert.equal(error.retryable, false);
    assert.ok(!(error instanceof ModelUnavailableError));
  });

  it("passes our own errors through and wraps SDK-side failures as config", () => {
    const output = new ModelOutputError("blocked");
    assert.equal(classifyProviderError(output), output);
    const sdk = classifyProviderError(
      new Error("Project and location are not supported for Gemini API backend."),
    );
    assert.equal(sdk.code, "config");
    assert.equal(sdk.retryable, false);
  });
});

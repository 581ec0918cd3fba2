// Documented Cloud Workflows limits the runner enforces. Source for every number:
// "Quotas and limits", https://cloud.google.com/workflows/quotas (section "Limits"),
// except where a line cites another page.

/** Steps executed by one execution (each step counts, including nested and repeated ones). */
export const MAX_STEPS_PER_EXECUTION = 100_000;

/** Cumulative size of the variables, arguments and events of one execution. */
export const MAX_VARIABLE_MEMORY_BYTES = 512 * 1024;

/** Largest HTTP response an http.* call may receive. */
export const MAX_HTTP_RESPONSE_BYTES = 2 * 1024 * 1024;

/** Largest string value (the syntax cheat sheet: "unicode <= 256 KB length"). */
export const MAX_STRING_BYTES = 256 * 1024;

/** Branches of one parallel step. */
export const MAX_PARALLEL_BRANCHES = 10;

/** Parallel steps nested inside parallel steps (a parallel step inside a branch is depth 2). */
export const MAX_PARALLEL_NESTING = 2;

/** Call stack depth for subworkflows. */
export const MAX_CALL_DEPTH = 20;

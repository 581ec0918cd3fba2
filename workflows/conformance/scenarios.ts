// What each bundled sample must do, and where that expectation comes from:
// "comment" = stated in the sample's own comments; "semantics" = derived from the
// documented Workflows semantics (the sample documents no result). See PROVENANCE.md.
import assert from "node:assert/strict";
import type { LogEntry } from "../runner/index.js";
import type { Routes, Seen } from "./sample-server.js";

export interface Outcome {
  result?: unknown;
  /** The Workflows error value when the execution failed. */
  error?: unknown;
  seen: Seen[];
  sleeps: number[];
  logs: LogEntry[];
}

export interface Scenario {
  sample: string;
  name: string;
  basis: "comment" | "semantics";
  args?: unknown;
  env?: Record<string, string>;
  routes?: Routes;
  /** The expected return value, or a check of the whole outcome. */
  result?: unknown;
  check?: (outcome: Outcome) => void;
}

const ok = (json: unknown) => [{ json }];
const urls = (o: Outcome) => o.seen.map((s) => `${s.method} ${s.url}`);
const tagsOf = (error: unknown): unknown => (error as { tags?: unknown } | undefined)?.tags;
const failed = (o: Outcome, tags: string[]) => assert.deepEqual(tagsOf(o.error), tags, JSON.stringify(o));

const API = "GET https://example.com/someapi";
const HOST_API = "GET https://host.com/api";

export const SCENARIOS: Scenario[] = [
  // Pure computation.
  {
    sample: "args",
    name: "builds the greeting from the runtime arguments",
    basis: "semantics",
    args: { firstName: "Ada", lastName: "Lovelace" },
    result: "Hello Ada Lovelace",
  },
  { sample: "array", name: "concatenates the list", basis: "semantics", result: { concat_result: "foobar" } },
  {
    sample: "step_iterate",
    name: "concatenates the list",
    basis: "semantics",
    result: { concat_result: "foobar" },
  },
  { sample: "dictionary", name: "builds a map with a computed key", basis: "semantics", result: null },
  { sample: "list", name: "assigns lists", basis: "semantics", result: null },
  { sample: "vars", name: "assigns scalars", basis: "semantics", result: null },
  {
    sample: "expression",
    name: "converts 27 C (int arithmetic turning double at /)",
    basis: "semantics",
    result: "Current temperature is 80.6 F",
  },
  { sample: "iterate_for_range", name: "sums 1..9", basis: "comment", result: 45 },
  { sample: "iterate_list", name: "sums the list", basis: "comment", result: 15 },
  { sample: "iterate_map", name: "sums the map through its keys", basis: "comment", result: 60 },
  { sample: "list_reverse", name: "reverses [1, 2, 3]", basis: "semantics", result: [3, 2, 1] },
  {
    sample: "loop_scope",
    name: "returns the workflow-scope variable the inner loop last wrote",
    basis: "comment",
    result: [8],
  },
  {
    sample: "step_switch_embedded",
    name: "runs the matching condition's steps",
    basis: "semantics",
    result: "increase a to:8",
  },
  {
    sample: "subworkflow",
    name: "returns the subworkflow's greeting",
    basis: "semantics",
    result: "Hello Kristof",
  },
  {
    sample: "parallel_error_handling",
    name: "catches one UnhandledBranchError listing the odd iterations",
    basis: "semantics",
    check: (o) => {
      const e = o.result as { tags: string[]; branches: { id: number; error: unknown }[] };
      assert.deepEqual(e.tags, ["UnhandledBranchError"]);
      assert.deepEqual(e.branches.map((b) => b.id).sort(), [1, 3, 5]);
      assert.ok(e.branches.every((b) => b.error === "how odd!"));
      assert.equal(o.logs.length, 1);
    },
  },

  // Error handling around HTTP calls.
  {
    sample: "error_catch",
    name: "returns the body on success",
    basis: "semantics",
    routes: { [API]: ok({ item: 1 }) },
    result: { item: 1 },
  },
  {
    sample: "error_catch",
    name: "maps 404 to its message",
    basis: "comment",
    routes: { [API]: [{ status: 404 }] },
    result: "Sorry, URL wasn't found",
  },
  {
    sample: "error_catch",
    name: "maps 403 to its message",
    basis: "comment",
    routes: { [API]: [{ status: 403 }] },
    result: "Authentication error",
  },
  {
    sample: "error_catch",
    name: "maps a refused connection (no HttpError tag) to its message",
    basis: "comment",
    routes: { [API]: "refuse" },
    result: "Connection problem; check URL",
  },
  {
    sample: "error_catch",
    name: "re-raises other HTTP errors",
    basis: "comment",
    routes: { [API]: [{ status: 500 }] },
    check: (o) => {
      failed(o, ["HttpError"]);
      assert.equal((o.error as { code: number }).code, 500);
    },
  },
  {
    sample: "error_retry",
    name: "retries a 503 with http.default_retry's backoff",
    basis: "semantics",
    routes: { [API]: [{ status: 503 }, { json: {} }] },
    check: (o) => {
      assert.equal(o.result, null);
      assert.deepEqual(o.sleeps, [1000]);
    },
  },
  {
    sample: "error_retry",
    name: "gives up after 5 retries",
    basis: "semantics",
    routes: { [API]: [{ status: 503 }] },
    check: (o) => {
      failed(o, ["HttpError"]);
      assert.deepEqual(o.sleeps, [1000, 1250, 1562.5, 1953.125, 2441.40625]);
    },
  },
  {
    sample: "error_retry_custom",
    name: "retries 503 and 502 with the custom backoff",
    basis: "semantics",
    routes: { [API]: [{ status: 503 }, { status: 502 }, { json: {} }] },
    check: (o) => {
      assert.equal(o.result, null);
      assert.deepEqual(o.sleeps, [2000, 4000]);
    },
  },
  ...["error_retry_500", "error_retry_http_status"].flatMap((sample): Scenario[] => [
    {
      sample,
      name: "retries 500s through the custom predicate",
      basis: "semantics",
      routes: { [HOST_API]: [{ status: 500 }, { status: 500 }, { json: {} }] },
      check: (o) => {
        assert.equal(o.result, "OK");
        assert.deepEqual(o.sleeps, [2000, 4000]);
      },
    },
    {
      sample,
      name: "does not retry a 404",
      basis: "semantics",
      routes: { [HOST_API]: [{ status: 404 }] },
      check: (o) => {
        failed(o, ["HttpError"]);
        assert.deepEqual(o.sleeps, []);
      },
    },
  ]),
  {
    sample: "error_retry_http_other",
    name: "retries a 202 it raises itself",
    basis: "semantics",
    routes: { [HOST_API]: [{ status: 202 }, { status: 202 }, { json: {} }] },
    check: (o) => {
      assert.equal(o.result, null);
      assert.deepEqual(o.sleeps, [2000, 4000]);
      assert.equal(o.seen.length, 3);
    },
  },
  {
    sample: "error_retry_predicate",
    name: "logs the error's tags, message and code, then does not retry a 500",
    basis: "semantics",
    routes: { [API]: [{ status: 500 }] },
    check: (o) => {
      failed(o, ["HttpError"]);
      assert.deepEqual(
        o.logs.map((l) => l.text),
        ['["HttpError"]', "HTTP server responded with error code 500", "500"],
      );
      assert.ok(o.logs.every((l) => l.severity === "INFO"));
    },
  },
  {
    sample: "error_retry_predicate",
    name: "returns OK when the first call succeeds",
    basis: "semantics",
    routes: { [API]: ok({}) },
    result: "OK",
  },

  // HTTP requests.
  {
    sample: "http_get",
    name: "sends the query and headers and returns the body",
    basis: "semantics",
    routes: { "GET https://www.example.com/endpoint": ok({ message: "hi" }) },
    check: (o) => {
      assert.deepEqual(o.result, { message: "hi" });
      const [req] = o.seen;
      assert.ok(req);
      const query = new URL(req.url).searchParams;
      assert.equal(query.get("some_val"), "Hello World");
      assert.equal(query.get("another_val"), "123");
      assert.equal(req.headers["content-type"], "text/plain");
    },
  },
  {
    sample: "http_post",
    name: "posts the body as JSON and returns the reply body",
    basis: "semantics",
    routes: { "POST https://www.example.com/endpoint": ok({ saved: true }) },
    check: (o) => {
      assert.deepEqual(o.result, { saved: true });
      const [req] = o.seen;
      assert.ok(req);
      assert.deepEqual(JSON.parse(req.body), { some_val: "Hello World", another_val: 123 });
      assert.match(String(req.headers["content-type"]), /^application\/json/);
    },
  },
  {
    // As published, `in: ${userIds}` iterates the whole response map (not its body), which
    // is not a list: the loop fails with TypeError before reading any user.
    sample: "iterate_for_in_http",
    name: "fails at the loop because it iterates the response map, not its body",
    basis: "semantics",
    routes: { "GET https://example.com/getUserIDs": ok([1, 2]) },
    check: (o) => {
      failed(o, ["TypeError"]);
      assert.deepEqual(urls(o), ["GET https://example.com/getUserIDs"]);
    },
  },
  {
    // As published, the switch tests the whole response map, which is not a boolean:
    // the first iteration (range ${[minTemp, maxTemp]} starts at -14.5) fails there.
    sample: "iterate_for_range_http",
    name: "iterates from the first bound of the range expression, then fails on a non-boolean condition",
    basis: "semantics",
    routes: { "GET https://example.com/isBodyTempNormal": ok(true) },
    check: (o) => {
      failed(o, ["TypeError"]);
      assert.deepEqual(urls(o), ["GET https://example.com/isBodyTempNormal?temp=-14.5"]);
    },
  },
  {
    sample: "myFirstWorkflow",
    name: "searches Wikipedia for the current day",
    basis: "semantics",
    routes: {
      "GET https://timeapi.io/api/Time/current/zone": ok({ dayOfWeek: "Wednesday" }),
      "GET https://en.wikipedia.org/w/api.php": (s) => ({
        json: [new URL(s.url).searchParams.get("search"), ["Wednesday", "Wednesday Addams"], [], []],
      }),
    },
    result: ["Wednesday", "Wednesday Addams"],
  },
  ...[
    ["Ferret", { searchTerm: "Ferret" }, {}],
    ["us", {}, { GOOGLE_CLOUD_LOCATION: "us-central1" }],
  ].map(
    ([term, input, env]): Scenario => ({
      sample: "quickstart",
      name: `searches for ${JSON.stringify(term)}`,
      basis: "semantics",
      args: input,
      env: env as Record<string, string>,
      routes: {
        "GET https://en.wikipedia.org/w/api.php": (s) => ({
          json: [null, [`${new URL(s.url).searchParams.get("search")} (article)`]],
        }),
      },
      result: [`${term} (article)`],
    }),
  ),

  // Parallel steps.
  {
    sample: "parallel_branch",
    name: "fetches the user and the notification in two branches",
    basis: "semantics",
    args: { userId: "u1", notificationId: "n1" },
    routes: { "GET https://example.com/users/u1": ok({}), "GET https://example.com/notification/n1": ok({}) },
    check: (o) => {
      assert.equal(o.result, null);
      assert.deepEqual(urls(o).sort(), [
        "GET https://example.com/notification/n1",
        "GET https://example.com/users/u1",
      ]);
    },
  },
  {
    // As published, `total + numComments` adds a response map to an int: every iteration fails.
    sample: "parallel_iteration",
    name: "fails each iteration with TypeError (the sample adds the response map, not its body)",
    basis: "semantics",
    args: { posts: ["p1", "p2"] },
    routes: {
      "GET https://example.com/postComments/p1": ok(3),
      "GET https://example.com/postComments/p2": ok(4),
    },
    check: (o) => {
      failed(o, ["UnhandledBranchError"]);
      const branches = (o.error as { branches: { error: unknown }[] }).branches;
      assert.equal(branches.length, 2);
      assert.ok(branches.every((b) => JSON.stringify(tagsOf(b.error)) === '["TypeError"]'));
    },
  },
  {
    sample: "parallel_loop",
    name: "posts each notification",
    basis: "semantics",
    args: { notifications: ["a", "b"] },
    routes: { "POST https://example.com/sendNotification": ok({}) },
    check: (o) => {
      assert.equal(o.result, null);
      assert.deepEqual(o.seen.map((s) => JSON.parse(s.body).notification).sort(), ["a", "b"]);
    },
  },
  {
    sample: "parallel_operations",
    name: "continues with an empty list when the items call fails",
    basis: "comment",
    args: { userId: "u1" },
    routes: {
      "GET https://example.com/users/u1": ok({}),
      "GET https://example.com/items": [{ status: 500 }],
    },
    check: (o) => {
      assert.equal(o.result, null);
      assert.equal(o.seen.length, 2);
    },
  },
  {
    sample: "parallel_shared_variables",
    name: "writes the shared map from both branches",
    basis: "comment",
    routes: {
      "GET http://mystore.com/getStock/apples": ok({ some: { entry: 5 } }),
      "GET http://mystore.com/orderStock/oranges": ok({ some: { entry: "ordered" } }),
    },
    result: null,
  },

  // Jumps.
  ...[
    [5, "SmallFunc"],
    [50, "MediumFunc"],
    [500, "LargeFunc"],
  ].map(
    ([field, target]): Scenario => ({
      sample: "step_conditional_jump",
      name: `jumps to ${target} for SomeField ${field}`,
      basis: "semantics",
      routes: {
        "GET https://www.example.com/callA": ok({ SomeField: field }),
        [`GET https://www.example.com/${target}`]: ok({}),
      },
      check: (o) =>
        assert.deepEqual(urls(o), [
          "GET https://www.example.com/callA",
          `GET https://www.example.com/${target}`,
        ]),
    }),
  ),
  ...[
    ["Friday", "It's Friday! Almost the weekend!"],
    ["Sunday", "It's the weekend!"],
    ["Monday", "It's the work week."],
  ].map(
    ([day, message]): Scenario => ({
      sample: "step_conditional_weekend",
      name: `answers for ${day}`,
      basis: "semantics",
      routes: { "GET https://timeapi.io/api/Time/current/zone": ok({ dayOfWeek: day }) },
      result: message,
    }),
  ),
  {
    sample: "step_explicit",
    name: "follows next: A, C, B",
    basis: "semantics",
    routes: Object.fromEntries(
      ["A", "B", "C"].map((x) => [`GET https://www.somewhere.com/call${x}`, ok({})]),
    ),
    check: (o) =>
      assert.deepEqual(
        urls(o).map((u) => u.slice(-1)),
        ["A", "C", "B"],
      ),
  },
  {
    sample: "step_implicit",
    name: "runs the steps in order",
    basis: "semantics",
    routes: Object.fromEntries(["A", "B", "C"].map((x) => [`GET https://www.example.com/call${x}`, ok({})])),
    check: (o) =>
      assert.deepEqual(
        urls(o).map((u) => u.slice(-1)),
        ["A", "B", "C"],
      ),
  },
];

/**
 * Lines the samples' comments document as refused ("not allowed", "deployment error").
 * Uncommenting one (keeping the list item's column) must make loadWorkflow refuse the
 * sample for that reason, not for a YAML error.
 */
export const DOCUMENTED_REFUSALS: { sample: string; comment: string; uncommented: string; reason: RegExp }[] =
  [
    ...["outerLoopScope", "innerLoopScope", "outerLoopValue"].map((name) => ({
      sample: "loop_scope",
      comment: `# - \${${name}}  # not allowed`,
      uncommented: `- \${${name}}  # not allowed`,
      reason: new RegExp(`variable '${name}' is not defined`),
    })),
    {
      sample: "parallel_shared_variables",
      comment: "# - input: 5  # deployment error",
      uncommented: "  - input: 5  # deployment error",
      reason: /cannot assign 'input' inside parallel step/,
    },
    {
      sample: "parallel_shared_variables",
      comment: `# - temp: \${temp2}  # deployment error`,
      uncommented: `  - temp: \${temp2}  # deployment error`,
      reason: /variable 'temp2' is not defined/,
    },
  ];

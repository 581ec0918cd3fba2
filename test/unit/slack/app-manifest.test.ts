import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Manifest } from "@slack/web-api/dist/types/request/manifest.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";

/**
 * The Slack app manifest a deployer pastes into "Create New App > From an app manifest"
 * (examples/slack-app-manifest.json, docs/deploy.md). Its bot scopes are derived from what the
 * code calls: every Slack Web API method named in functions/src (apiCall("<method>", …)) and
 * every event the Events API handler accepts, through the scopes Slack documents for each
 * (test/fixtures/real/slack/method-scopes.json).
 */
const manifest = JSON.parse(readFileSync(fromRoot("examples/slack-app-manifest.json"), "utf8")) as Manifest;
const documented = JSON.parse(
  readFileSync(fromRoot("test/fixtures/real/slack/method-scopes.json"), "utf8"),
) as {
  methods: Record<string, string[]>;
  events: Record<string, string[]>;
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "local" ? [] : sources(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

// functions/src/local holds the stand-ins, which answer methods rather than call them.
const code = sources(fromRoot("functions/src")).map((path) => readFileSync(path, "utf8"));
const calledMethods = [
  ...new Set(
    code.flatMap((text) =>
      [...text.matchAll(/(?:apiCall|\bslack\.call)\(\s*"([a-z]+\.[a-zA-Z.]+)"/g)].map((m) => m[1] as string),
    ),
  ),
].sort();
const handledEvents = [
  ...new Set(
    code.flatMap((text) => [...text.matchAll(/type: z\.literal\("([a-z_]+)"\)/g)].map((m) => m[1] as string)),
  ),
]
  .filter((type) => type in documented.events)
  .sort();

test("the code's Slack calls are found, and Slack documents the scopes of each", () => {
  for (const method of ["chat.postMessage", "chat.update", "views.open", "auth.test", "conversations.info"])
    assert.ok(calledMethods.includes(method), `${method} is called (found: ${calledMethods})`);
  const unknown = calledMethods.filter((m) => !(m in documented.methods));
  assert.deepEqual(unknown, [], "methods whose required scopes the fixture does not list");
  assert.deepEqual(handledEvents, ["app_mention"]);
});

test("the manifest's bot scopes are exactly what the called methods and handled events need", () => {
  const needed = [
    ...new Set([
      ...calledMethods.flatMap((m) => documented.methods[m] ?? []),
      ...handledEvents.flatMap((e) => documented.events[e] ?? []),
    ]),
  ].sort();
  assert.deepEqual([...(manifest.oauth_config?.scopes?.bot ?? [])].sort(), needed);
  assert.equal(manifest.oauth_config?.scopes?.user, undefined, "no user scopes: ferret acts as its bot");
});

test("events and interactivity go to the one request URL (ferret-slack-events), over HTTP, not Socket Mode", () => {
  const events = manifest.settings?.event_subscriptions;
  const interactivity = manifest.settings?.interactivity;
  assert.deepEqual([...(events?.bot_events ?? [])].sort(), handledEvents);
  assert.equal(interactivity?.is_enabled, true);
  assert.ok(events?.request_url && events.request_url === interactivity?.request_url);
  assert.match(events.request_url, /^https:\/\/REPLACE-/, "a placeholder the deployer replaces");
  assert.equal(manifest.settings?.socket_mode_enabled, false);
  assert.ok(manifest.display_information.name && manifest.features?.bot_user?.display_name);
});

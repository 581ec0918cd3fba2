import { createRequire } from "node:module";
import type { Liquid } from "liquidjs";
import { escapeUnseenForJson } from "../domain/visible-text.js";
import { fromRoot } from "../platform/paths.js";

// liquidjs loads on the first render, not at import: most functions import this module through
// shared code without rendering a prompt, and a cold import should not pay for the engine.
// renderPrompt is synchronous, hence require (liquidjs's Node entry is CommonJS anyway).
const requireModule = createRequire(import.meta.url);

/**
 * Prompts live as Liquid templates under prompts/. Missing variables and unknown filters
 * are errors, so a renamed field fails a render test instead of producing a prompt with
 * a hole in it.
 */
const FENCE_OPEN = "<<<UNTRUSTED_DATA";
const FENCE_CLOSE = "<<<END_UNTRUSTED_DATA>>>";

/**
 * Serializes attacker-influenced data inside a fence the data cannot close: `<` is
 * escaped as \u003c inside the JSON, so no value can spell the closing marker; characters a
 * reader cannot see are written as escapes, so hidden text arrives as visible data.
 */
export function fenceUntrusted(value: unknown, kind: string): string {
  const safeKind = kind.replace(/[^a-z0-9_]/gi, "_");
  const json = escapeUnseenForJson((JSON.stringify(value, null, 2) ?? "null").replace(/</g, "\\u003c"));
  return `${FENCE_OPEN} kind="${safeKind}">>>\n${json}\n${FENCE_CLOSE}`;
}

let engine: Liquid | undefined;

function liquid(): Liquid {
  if (engine) return engine;
  const { Liquid: Engine } = requireModule("liquidjs") as typeof import("liquidjs");
  engine = new Engine({
    root: [fromRoot("prompts")],
    extname: ".liquid",
    strictVariables: true,
    strictFilters: true,
    cache: true,
    greedy: false,
  });
  engine.registerFilter("untrusted", (value: unknown, kind: unknown) =>
    fenceUntrusted(value, String(kind ?? "data")),
  );
  engine.registerFilter("to_json", (value: unknown) => JSON.stringify(value, null, 2));
  return engine;
}

export type PromptName =
  | "planner.system"
  | "planner.user"
  | "executor.system"
  | "executor.user"
  | "reflector.system"
  | "reflector.user"
  | "concluder.system"
  | "concluder.user"
  | "log-analyst.system"
  | "log-analyst.user"
  | "compressor.system"
  | "compressor.user"
  | "introspector.system"
  | "introspector.user"
  | "thread-answer.system"
  | "thread-answer.user"
  // The bench's ReAct comparison agent (bench/react/), not a production role.
  | "react.system"
  | "react.user";

/** A role's prompt as its brief renders it (agent/briefs.ts): the system instruction and the first user message. */
export interface RenderedPrompt {
  system: string;
  user: string;
}

export function renderPrompt(name: PromptName, variables: Record<string, unknown>): string {
  // The names contain a dot ("planner.user"), so liquidjs would not append extname itself.
  const text = liquid().renderFileSync(`${name}.liquid`, variables) as string;
  return text.replace(/\n{3,}/g, "\n\n").trim();
}

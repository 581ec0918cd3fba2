import { createRequire } from "node:module";
import type { Liquid } from "liquidjs";
import { visibleText } from "../domain/visible-text.js";
import { fromRoot } from "../platform/paths.js";

// The engine loads with the first page rendered, not with the console's module (cold import).
const requireModule = createRequire(import.meta.url);

/**
 * The console's pages are Liquid templates under console/views/, rendered on the server.
 * Every `{{ }}` output is HTML-escaped by the engine (outputEscape), so a finding field, a
 * log row or an analyst's reason is text in the page whatever it contains; a template cannot
 * forget to escape. Every string of a page's data goes first through the sanitizer Slack and the CLI use
 * (domain/visible-text.ts): invisible characters removed, direction controls such as U+202E
 * shown as a marker rather than reversing the text around them. Nothing is ever marked raw. Missing variables and unknown filters are
 * errors, so a renamed field fails a render test instead of leaving a hole in a page.
 */
export type ViewName = "investigations" | "investigation" | "memories" | "queue" | "report" | "error";

let engine: Liquid | undefined;

function liquid(): Liquid {
  if (engine) return engine;
  const { Liquid: Engine } = requireModule("liquidjs") as typeof import("liquidjs");
  engine = new Engine({
    root: [fromRoot("console/views")],
    extname: ".liquid",
    outputEscape: "escape",
    strictVariables: true,
    strictFilters: true,
    cache: true,
    greedy: false,
  });
  engine.registerFilter("json", (value: unknown) => JSON.stringify(value, null, 2) ?? "null");
  return engine;
}

/** Every string of the page's data, however deep, through the one sanitizer. */
function visibleData(value: unknown): unknown {
  if (typeof value === "string") return visibleText(value);
  if (Array.isArray(value)) return value.map(visibleData);
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visibleData(v)]));
  return value;
}

export function renderView(name: ViewName, context: Record<string, unknown>): Promise<string> {
  return liquid().renderFile(name, visibleData(context) as Record<string, unknown>);
}

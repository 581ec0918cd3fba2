import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { HELD_BACK, SCENARIOS } from "./scenarios/index.js";
import { Rng } from "./scenarios/prng.js";
import type { ScenarioDefinition } from "./scenarios/scenario.js";

/**
 * Writes the example scenarios (notification, logs, intel, expected verdict) from their
 * seeds. Deterministic: the same seeds give byte-identical files, so the committed
 * examples can be regenerated and diffed. `--set held-back` writes the held-back scenarios
 * (scored only on request: `ferret eval examples/held-back`) instead of the public ones.
 *
 *   node_modules/.bin/node --import tsx scripts/generate-scenarios.ts [--set public|held-back] [--out dir] [--only name]
 */
export function generateScenarios(
  outDir: string,
  only?: readonly string[],
  set: readonly ScenarioDefinition[] = SCENARIOS,
): string[] {
  const written: string[] = [];
  for (const scenario of set) {
    if (only && only.length > 0 && !only.includes(scenario.name)) continue;
    const dir = join(outDir, scenario.name);
    rmSync(dir, { recursive: true, force: true });
    for (const [path, content] of scenario.build(new Rng(scenario.seed))) {
      const file = join(dir, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
      written.push(file);
    }
  }
  return written;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      set: { type: "string", default: "public" },
      out: { type: "string" },
      only: { type: "string", multiple: true },
    },
  });
  const heldBack = values.set === "held-back";
  if (!heldBack && values.set !== "public")
    throw new Error(`--set is public or held-back, not ${values.set}`);
  const outDir = resolve(values.out ?? (heldBack ? "examples/held-back" : "examples/scenarios"));
  const files = generateScenarios(outDir, values.only, heldBack ? HELD_BACK : SCENARIOS);
  process.stdout.write(`wrote ${files.length} files under ${outDir}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main();

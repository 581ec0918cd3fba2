import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { SCENARIOS } from "./scenarios/index.js";
import { Rng } from "./scenarios/prng.js";

/**
 * Writes the example scenarios (notification, logs, intel, expected verdict) from their
 * seeds. Deterministic: the same seeds give byte-identical files, so the committed
 * examples can be regenerated and diffed.
 *
 *   node_modules/.bin/node --import tsx scripts/generate-scenarios.ts [--out examples/scenarios] [--only name]
 */
export function generateScenarios(outDir: string, only?: readonly string[]): string[] {
  const written: string[] = [];
  for (const scenario of SCENARIOS) {
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
      out: { type: "string", default: "examples/scenarios" },
      only: { type: "string", multiple: true },
    },
  });
  const outDir = resolve(values.out ?? "examples/scenarios");
  const files = generateScenarios(outDir, values.only);
  process.stdout.write(`wrote ${files.length} files under ${outDir}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main();

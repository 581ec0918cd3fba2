import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { isGoogleServiceAddress } from "../functions/src/domain/finding/google-ip-ranges.js";
import type { investigate as Investigate } from "../test/unit/offline/support/harness.js";
import type { openScenario as OpenScenario } from "../test/unit/offline/support/tools.js";

/**
 * What the conclusions of the bundled scenarios (examples/scenarios) list as IOCs, run by the
 * offline model over each scenario's logs and intel as the offline tests run them (no tokens):
 * how many IOCs each lists, how many of the IOCs its expected.json requires are among them, how
 * many are addresses in Google's published service ranges, and how many came from log rows
 * with nothing tying them to the finding (context "seen in … results" alone).
 *   npx tsx scripts/measure-conclusion-iocs.ts [checkout] [--list]
 * With a checkout (`/work/main`), that checkout's code runs over this tree's scenarios (before → after).
 */
interface Expected {
  requiredIocs?: { type: string; value: string }[];
}

const here = new URL("..", import.meta.url).pathname;
const checkout = process.argv[2] && !process.argv[2].startsWith("--") ? resolve(process.argv[2]) : here;
const support = (file: string) => pathToFileURL(join(checkout, "test/unit/offline/support", file)).href;
const { investigate } = (await import(support("harness.ts"))) as { investigate: typeof Investigate };
const { openScenario } = (await import(support("tools.ts"))) as { openScenario: typeof OpenScenario };
const root = resolve(here, "examples/scenarios");
const list = process.argv.includes("--list");
let listed = 0;
let required = 0;
let requiredFound = 0;
let google = 0;
let untied = 0;
for (const name of readdirSync(root).sort()) {
  const dir = join(root, name);
  const expected = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")) as Expected;
  const { finding, tools } = await openScenario(dir);
  try {
    const { conclusion } = await investigate(finding, tools);
    const values = new Set(conclusion.iocs.map((i) => i.value.toLowerCase()));
    const want = expected.requiredIocs ?? [];
    const found = want.filter((w) => values.has(w.value.toLowerCase())).length;
    const g = conclusion.iocs.filter((i) => i.type === "ip" && isGoogleServiceAddress(i.value)).length;
    const u = conclusion.iocs.filter((i) => /^seen in .* results$/.test(i.context ?? "")).length;
    listed += conclusion.iocs.length;
    required += want.length;
    requiredFound += found;
    google += g;
    untied += u;
    process.stdout.write(
      `${name}: ${conclusion.iocs.length} IOCs, required ${found}/${want.length}, Google front ends ${g}, seen-only ${u}\n`,
    );
    if (list)
      for (const i of conclusion.iocs) process.stdout.write(`  ${i.type} ${i.value} | ${i.context ?? ""}\n`);
  } finally {
    await tools.close();
  }
}
process.stdout.write(
  `total: ${listed} IOCs listed; required IOCs listed ${requiredFound}/${required}; Google front ends ${google}; seen in the logs and nothing more ${untied}\n`,
);

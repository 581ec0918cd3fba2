import { readdirSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import {
  type Figures,
  type Implementation,
  implementationAt,
  measure,
  type Sample,
} from "./measure-findings.js";

/**
 * A corpus in two halves (test/fixtures/real/scc-round3 and scc-round4, PROVENANCE.md in each),
 * each half with a TRUTH.json written before ferret read the payloads. The truth covers IPs,
 * domains, URLs and hashes only, so ferret's report is measured on those kinds (principals count
 * neither way).
 *   npx tsx scripts/measure-halves.ts tune [checkout] [--corpus scc-round4] [--split]      # while tuning
 *   npx tsx scripts/measure-halves.ts heldback [checkout] [--corpus scc-round4] [--split]  # once, at the end
 * --corpus names the folder under test/fixtures/real (default scc-round3); --split hands the other
 * checkout each finding as this tree's file reader splits it.
 */

type Half = "tune" | "heldback";
export type Corpus = "scc-round3" | "scc-round4";
const KINDS = new Set(["ip", "domain", "url", "hash"]);

interface Truth {
  payloads: Record<string, { indicators: { type: string; value: string }[] }>;
}

export function loadHalf(half: Half, corpus: Corpus = "scc-round3"): Sample[] {
  const dir = new URL(`../test/fixtures/real/${corpus}/${half}/`, import.meta.url);
  const truth = JSON.parse(readFileSync(new URL("TRUTH.json", dir), "utf8")) as Truth;
  const files = readdirSync(dir).filter((f) => f !== "TRUTH.json" && f.endsWith(".json"));
  return files.sort().map((file) => {
    const want = truth.payloads[file];
    if (!want) throw new Error(`${half}/${file} has no truth`);
    return {
      name: file.replace(/\.json$/, ""),
      file,
      text: readFileSync(new URL(file, dir), "utf8"),
      expected: [
        { category: "", severity: "", resourceName: "", ingest: "investigate", iocs: want.indicators },
      ],
      truthPerFile: true,
    };
  });
}

/** The implementation with its report narrowed to the kinds the truth speaks about. */
function narrowed(impl: Implementation): Implementation {
  return { ...impl, findingIocs: (f: never) => impl.findingIocs(f).filter((i) => KINDS.has(i.type)) };
}

export function measureHalf(impl: Implementation, half: Half, corpus: Corpus = "scc-round3"): Figures {
  return measure(narrowed(impl), loadHalf(half, corpus));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const half = process.argv[2] === "heldback" ? "heldback" : "tune";
  const here = new URL("..", import.meta.url).pathname;
  const root = process.argv[3] && !process.argv[3].startsWith("--") ? process.argv[3] : here;
  const corpusAt = process.argv.indexOf("--corpus");
  const corpus: Corpus =
    process.argv[corpusAt + 1] === "scc-round4" && corpusAt > 0 ? "scc-round4" : "scc-round3";
  const f = measureHalf(
    await implementationAt(root, process.argv.includes("--split") ? here : undefined),
    half,
    corpus,
  );
  process.stdout.write(
    [
      `${corpus} ${half}: payloads ${f.samples}, refused ${f.refused}`,
      `recall ${f.recall.toFixed(2)} (${f.iocRight}/${f.iocExpected}), precision ${f.precision.toFixed(2)} (${f.iocRight}/${f.iocReported})`,
      `refused:\n  ${f.refusals.join("\n  ")}`,
      `not indicators but reported:\n  ${f.falsePositives.join("\n  ")}`,
      `missed:\n  ${f.misses.join("\n  ")}`,
    ].join("\n") + "\n",
  );
}

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { readSavedPages } from "./catalog/google-lists.js";

/**
 * Measures how ferret reads the real-findings corpus (test/fixtures/real/scc, sources in its
 * PROVENANCE.md) against the hand-written expectations beside each sample, and how much of
 * Google's saved category lists (test/fixtures/real/google-docs) the catalog covers:
 *   refused findings, IOC recall, IOC precision, findings without a resource, categories covered.
 * The figures in docs/findings.md come from this script:
 *   npx tsx scripts/measure-findings.ts              # this tree
 *   npx tsx scripts/measure-findings.ts /work/main   # another checkout of ferret (before → after)
 *   npx tsx scripts/measure-findings.ts /work/main --split   # that checkout, each finding handed to it
 *                                                            # alone (this tree's reader splits files)
 * test/unit/domain/real-scc-corpus.test.ts runs the same measure and holds the thresholds.
 */

export interface ExpectedFinding {
  category: string;
  severity: string;
  resourceName: string;
  ingest: "investigate" | "skip";
  iocs: { type: string; value: string }[];
  internal?: string[];
  signatures?: string[];
}

export interface Sample {
  name: string;
  file: string;
  text: string;
  expected: ExpectedFinding[];
  /**
   * The truth speaks of the file, not of each finding in it (a list of results written as one
   * truth): what every finding of the file reports is compared with it, as one.
   */
  truthPerFile?: boolean;
}

interface Ioc {
  type: string;
  value: string;
}
interface NormalizedFinding {
  category: string;
  resource: { name: string };
}

/** What is measured: the entry points every version of ferret has, and the reader when it exists. */
export interface Implementation {
  parseNotification(payload: unknown): unknown;
  normalizeNotification(n: never): NormalizedFinding;
  findingIocs(f: never): Ioc[];
  catalogEntryFor(category: string): unknown;
  readFindingsText?: (text: string, name?: string) => { items: { payload: unknown }[] };
}

const CORPUS = new URL("../test/fixtures/real/scc/", import.meta.url);

export function loadCorpus(dir: URL = CORPUS): Sample[] {
  return readdirSync(dir)
    .filter((f) => /\.(json|jsonl|log)$/.test(f) && !f.endsWith(".expected.json"))
    .sort()
    .map((file) => {
      const name = file.replace(/\.(json|jsonl|log)$/, "");
      const expected = JSON.parse(readFileSync(new URL(`${name}.expected.json`, dir), "utf8")) as
        | ExpectedFinding
        | { findings: ExpectedFinding[] };
      return {
        name,
        file,
        text: readFileSync(new URL(file, dir), "utf8"),
        expected: "findings" in expected ? expected.findings : [expected],
      };
    });
}

/** principal and email are one kind (an identity); hashes and domains compare lowercased. */
export function iocKey(ioc: Ioc): string {
  const kind = ioc.type === "email" ? "principal" : ioc.type;
  return `${kind}:${kind === "hash" || kind === "domain" ? ioc.value.toLowerCase() : ioc.value}`;
}

export interface Figures {
  samples: number;
  findings: number;
  refused: number;
  withoutResource: number;
  iocExpected: number;
  iocReported: number;
  iocRight: number;
  recall: number;
  precision: number;
  falsePositives: string[];
  misses: string[];
  refusals: string[];
  categories: {
    listed: number;
    covered: number;
    byPage: Record<string, { listed: number; covered: number }>;
  };
}

/** The findings of one sample as this implementation reads them; a refusal refuses them all. */
function read(impl: Implementation, sample: Sample): NormalizedFinding[] | Error {
  try {
    const payloads = impl.readFindingsText
      ? impl.readFindingsText(sample.text, sample.file).items.map((i) => i.payload)
      : [JSON.parse(sample.text) as unknown];
    return payloads.map((p) => impl.normalizeNotification(impl.parseNotification(p) as never));
  } catch (error) {
    return error as Error;
  }
}

export function measure(impl: Implementation, samples: Sample[] = loadCorpus()): Figures {
  let findings = 0;
  let refused = 0;
  let withoutResource = 0;
  let iocExpected = 0;
  let iocReported = 0;
  let iocRight = 0;
  const falsePositives: string[] = [];
  const misses: string[] = [];
  const refusals: string[] = [];
  for (const sample of samples) {
    const got = read(impl, sample);
    sample.expected.forEach((want, i) => {
      findings++;
      const expected = new Set(want.iocs.map(iocKey));
      iocExpected += expected.size;
      const f = got instanceof Error ? undefined : got[i];
      const all = got instanceof Error ? [] : sample.truthPerFile ? got : f ? [f] : [];
      if (!f) {
        refused++;
        refusals.push(
          `${sample.name}#${i + 1}: ${got instanceof Error ? got.message.slice(0, 160) : "not read"}`,
        );
        for (const e of expected) misses.push(`${sample.name}#${i + 1} ${e}`);
        return;
      }
      if (!f.resource.name) withoutResource++;
      const reported = new Set(all.flatMap((one) => impl.findingIocs(one as never).map(iocKey)));
      iocReported += reported.size;
      for (const r of reported) {
        if (expected.has(r)) iocRight++;
        else falsePositives.push(`${sample.name}#${i + 1} ${r}`);
      }
      for (const e of expected) if (!reported.has(e)) misses.push(`${sample.name}#${i + 1} ${e}`);
    });
  }
  return {
    samples: samples.length,
    findings,
    refused,
    withoutResource,
    iocExpected,
    iocReported,
    iocRight,
    recall: iocExpected === 0 ? 1 : iocRight / iocExpected,
    precision: iocReported === 0 ? 1 : iocRight / iocReported,
    falsePositives,
    misses,
    refusals,
    categories: coverage(impl),
  };
}

/** Categories of Google's saved pages with a catalog entry, overall (unique names) and per page. */
export function coverage(impl: Pick<Implementation, "catalogEntryFor">): Figures["categories"] {
  const byPage: Record<string, { listed: number; covered: number }> = {};
  const all = new Map<string, boolean>();
  for (const page of readSavedPages()) {
    const names = [...new Set(page.categories.map((c) => c.category))];
    const covered = names.filter((n) => impl.catalogEntryFor(n) !== undefined);
    byPage[page.file] = { listed: names.length, covered: covered.length };
    for (const n of names) all.set(n.toLowerCase(), impl.catalogEntryFor(n) !== undefined);
  }
  return { listed: all.size, covered: [...all.values()].filter(Boolean).length, byPage };
}

/** The implementation in a checkout of ferret (this tree by default). */
export async function implementationAt(root: string, readerRoot?: string): Promise<Implementation> {
  // The reader moved into domain/finding/ (issue 38); an older checkout has it in domain/.
  const at = (base: string, p: string) => {
    const inFolder = join(resolve(base), "functions/src/domain/finding", p);
    return pathToFileURL(existsSync(inFolder) ? inFolder : join(resolve(base), "functions/src/domain", p))
      .href;
  };
  const finding = (await import(at(root, "finding.ts"))) as Implementation;
  const catalog = (await import(at(root, "category-catalog.ts"))) as Pick<Implementation, "catalogEntryFor">;
  let reader: Pick<Implementation, "readFindingsText"> = {};
  try {
    reader = (await import(at(readerRoot ?? root, "finding-file.ts"))) as Pick<
      Implementation,
      "readFindingsText"
    >;
  } catch {
    // An older checkout has no file reader: each file is one JSON document, as inspect read it then.
  }
  return {
    parseNotification: finding.parseNotification,
    normalizeNotification: finding.normalizeNotification,
    findingIocs: finding.findingIocs,
    catalogEntryFor: catalog.catalogEntryFor,
    ...(reader.readFindingsText ? { readFindingsText: reader.readFindingsText } : {}),
  };
}

export function formatFigures(f: Figures): string {
  const pct = (n: number) => n.toFixed(2);
  const pages = Object.entries(f.categories.byPage)
    .map(([page, c]) => `  ${page}: ${c.covered}/${c.listed}`)
    .join("\n");
  return [
    `samples ${f.samples}, findings ${f.findings}`,
    `refused ${f.refused}`,
    `IOC recall ${pct(f.recall)} (${f.iocRight}/${f.iocExpected})`,
    `IOC precision ${pct(f.precision)} (${f.iocRight}/${f.iocReported})`,
    `findings without resource ${f.withoutResource}`,
    `categories covered ${f.categories.covered}/${f.categories.listed} of Google's saved lists`,
    pages,
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const here = new URL("..", import.meta.url).pathname;
  const root = process.argv[2] && !process.argv[2].startsWith("--") ? process.argv[2] : here;
  const figures = measure(await implementationAt(root, process.argv.includes("--split") ? here : undefined));
  process.stdout.write(`${formatFigures(figures)}\n`);
  if (process.argv.includes("--details")) {
    process.stdout.write(`\nrefused:\n  ${figures.refusals.join("\n  ")}\n`);
    process.stdout.write(`\nnot IOCs but reported:\n  ${figures.falsePositives.join("\n  ")}\n`);
    process.stdout.write(`\nmissed:\n  ${figures.misses.join("\n  ")}\n`);
  }
}

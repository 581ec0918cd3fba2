import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse } from "tldts";
import { ingestDecision } from "../../../functions/src/app/ingest.js";
import { ConfigSchema } from "../../../functions/src/config/config.js";
import {
  type Finding,
  findingIocs,
  normalizeNotification,
  parseNotification,
} from "../../../functions/src/domain/finding/finding.js";
import { readFindingsText } from "../../../functions/src/domain/finding/finding-file.js";
import { findingIocOccurrences } from "../../../functions/src/domain/finding/finding-iocs.js";
import { implementationAt, loadCorpus, measure } from "../../../scripts/measure-findings.js";

/**
 * The real-world corpus (test/fixtures/real/scc, sources in PROVENANCE.md): public SCC
 * notifications and findings as Google and others published them. Each sample has an
 * `.expected.json` written by reading the sample: what an analyst would extract.
 */

const corpus = loadCorpus();
const samples = corpus.flatMap((sample) => {
  const items = readFindingsText(sample.text, sample.file).items;
  return sample.expected.map((expected, i) => ({
    name: sample.expected.length > 1 ? `${sample.name}#${i + 1}` : sample.name,
    raw: items[i]?.payload,
    expected,
  }));
});

const defaults = ConfigSchema.parse({}).ingest;

function read(raw: unknown): Finding {
  return normalizeNotification(parseNotification(raw));
}

// ---- an independent walk of the raw JSON, written apart from the production extractor ----

/** Sections describing the organisation or SCC itself, and Google-written prose. */
const SKIP_KEYS = new Set([
  "contacts",
  "externalSystems",
  "muteInitiator",
  "muteInfo",
  "securityMarks",
  "compliances",
  "compliance_standards",
  "references",
  "contextUris",
  "externalUri",
  "ResourcePath",
  "propertyDataTypes",
  "Recommendation",
  "Explanation",
  "ExceptionInstructions",
  "description",
  "nextSteps",
  "resource",
  // API identifiers ("compute.googleapis.com", "v1.compute.projects.setCommonInstanceMetadata").
  "serviceName",
  "methodName",
]);

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;
const MAIL = /^(?:[a-zA-Z]+:)?([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})$/;
const URL_WHOLE = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;
const HEX = /^(?:[a-f0-9]{32}|[a-f0-9]{40}|[a-f0-9]{64})$/i;
const HOST = /^(?:[a-z0-9-]+\.)+[a-z]{2,}$/i;

/** `kind:value` for every IOC-shaped value an analyst could pick out of the sample. */
function walkRaw(value: unknown, key = "", out = new Set<string>()): Set<string> {
  if (SKIP_KEYS.has(key)) return out;
  if (typeof value === "string") {
    const v = value.trim();
    const mail = MAIL.exec(v);
    if (IPV4.test(v) && v !== "0.0.0.0") out.add(`ip:${v}`);
    else if (mail?.[1]) out.add(`mail:${mail[1]}`);
    else if (URL_WHOLE.test(v)) out.add(`url:${v}`);
    else if (HEX.test(v)) out.add(`hash:${v.toLowerCase()}`);
    // A host name ends in a public suffix (tldts, the library; not ferret's grammar): "report.xlsx" is a file.
    else if (HOST.test(v) && parse(v).isIcann === true) out.add(`domain:${v.toLowerCase()}`);
    return out;
  }
  if (Array.isArray(value)) {
    for (const item of value) walkRaw(item, key, out);
    return out;
  }
  if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) walkRaw(v, k, out);
  return out;
}

function kindOf(type: string): string {
  return type === "principal" || type === "email" ? "mail" : type;
}

function extracted(f: Finding): Set<string> {
  return new Set(
    findingIocs(f).map(
      (i) =>
        `${kindOf(i.type)}:${i.type === "hash" || i.type === "domain" ? i.value.toLowerCase() : i.value}`,
    ),
  );
}

// ---- per sample: what an analyst reading the JSON would extract ----

describe("real SCC corpus: each sample as an analyst reads it", () => {
  it(`holds at least 40 findings from ${corpus.length} files (${samples.length})`, () => {
    assert.ok(samples.length >= 40);
  });

  for (const { name, raw, expected } of samples) {
    describe(name, () => {
      it("is accepted and normalized, with its category, severity and resource", () => {
        const f = read(raw);
        assert.equal(f.category, expected.category);
        assert.equal(f.severity, expected.severity);
        assert.equal(f.resource.name, expected.resourceName);
      });

      it(`ingest decides to ${expected.ingest} under the default policy, with a reason`, () => {
        const decision = ingestDecision(read(raw), defaults);
        assert.equal(decision.action, expected.ingest);
        assert.ok(decision.reason.length > 10);
      });

      it(`carries the ${expected.iocs.length} IOC(s) an analyst would extract, each with its JSON path`, () => {
        const iocs = findingIocs(read(raw));
        const inSample = walkRaw(raw);
        for (const want of expected.iocs) {
          // The expectation is grounded in the sample itself, not in what the code produces.
          assert.ok(inSample.has(`${kindOf(want.type)}:${want.value}`), `${want.value} is not in the sample`);
          const got = iocs.find((i) => i.type === want.type && i.value === want.value);
          assert.ok(got, `${want.type} ${want.value} missing from ${iocs.map((i) => i.value).join(", ")}`);
          assert.ok(got.path && got.path.length > 0, `${want.value} has no path`);
        }
      });

      it(`types ${expected.internal?.length ?? 0} private address(es) as internal endpoints, not IOCs`, () => {
        const report = findingIocOccurrences(read(raw));
        assert.deepEqual(
          report.internalEndpoints.map((e) => e.value).sort(),
          [...(expected.internal ?? [])].sort(),
        );
        assert.ok(report.iocs.every((i) => !(expected.internal ?? []).includes(i.value)));
      });

      if (expected.signatures) {
        const signatures = expected.signatures;
        it("names the memory-hash and YARA detections", () => {
          assert.deepEqual(read(raw).indicators.signatures, signatures);
        });
      }

      it("loses no value: every non-default leaf of the sample is in the normalized finding", () => {
        const f = read(raw);
        const text = JSON.stringify(f);
        const missing = leaves(raw).filter((leaf) => !text.includes(JSON.stringify(leaf).slice(1, -1)));
        assert.deepEqual(missing, []);
      });
    });
  }
});

/** Strings and numbers of the finding and resource SCC would send (proto3 defaults mean "not set"). */
function leaves(raw: unknown): (string | number)[] {
  const out: (string | number)[] = [];
  const visit = (v: unknown, key: string) => {
    // Envelope keys the normalizer reads into typed fields under other names.
    if (key === "notificationConfigName") return;
    if (typeof v === "string") {
      const s = v.trim();
      if (s && s !== "0" && s !== "0s" && !/_UNSPECIFIED$/.test(s) && !/^1970-01-01T00:00:00Z$/.test(s))
        out.push(v);
    } else if (typeof v === "number" && v !== 0) out.push(v);
    else if (Array.isArray(v)) for (const item of v) visit(item, key);
    else if (v && typeof v === "object")
      for (const [k, item] of Object.entries(v)) {
        // The marks' own name is the finding's name plus "/securityMarks": derived, not kept.
        if (key === "securityMarks" && (k === "name" || k === "canonicalName")) continue;
        visit(item, k);
      }
  };
  visit(raw, "");
  return out;
}

// ---- corpus-wide figures (scripts/measure-findings.ts, the figures in docs/findings.md) ----

describe("real SCC corpus: the measured figures", () => {
  it("refuses none, names every resource, recall ≥ 0.95 and precision ≥ 0.9 against the expectations", async (t) => {
    const figures = measure(await implementationAt(new URL("../../../", import.meta.url).pathname));
    t.diagnostic(
      `findings ${figures.findings}; refused ${figures.refused}; recall ${figures.recall.toFixed(3)}; precision ${figures.precision.toFixed(3)}; without resource ${figures.withoutResource}`,
    );
    assert.ok(figures.findings >= 40, `${figures.findings} findings`);
    assert.deepEqual(figures.refusals, []);
    assert.equal(figures.withoutResource, 0);
    assert.ok(figures.recall >= 0.95, `recall ${figures.recall}: missed ${figures.misses.join("; ")}`);
    assert.ok(
      figures.precision >= 0.9,
      `precision ${figures.precision}: not IOCs but reported ${figures.falsePositives.join("; ")}`,
    );
  });

  it("recalls at least 95% of the IOC-shaped values an independent walk finds, less the ones the typing rules make context", () => {
    let found = 0;
    let total = 0;
    const misses: string[] = [];
    for (const { name, raw } of samples) {
      const f = read(raw);
      const report = findingIocOccurrences(f);
      // Values the typing rules make context, internal endpoints and resources, whatever kind the walk gave them.
      const context = new Set(
        [
          ...report.excluded.map((e) => e.value),
          ...report.internalEndpoints.map((e) => e.value),
          ...report.resources.map((r) => r.name),
        ].map((v) => v.toLowerCase()),
      );
      const got = extracted(f);
      for (const want of walkRaw(raw)) {
        if (context.has(want.slice(want.indexOf(":") + 1).toLowerCase())) continue;
        total++;
        if (got.has(want)) found++;
        else misses.push(`${name}: ${want}`);
      }
    }
    const recall = total === 0 ? 1 : found / total;
    assert.ok(total >= 15, `the walk found only ${total} values`);
    assert.ok(recall >= 0.95, `recall ${recall.toFixed(3)}: ${misses.join("; ")}`);
  });
});

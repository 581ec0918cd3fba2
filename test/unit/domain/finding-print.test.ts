import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  normalizeNotification,
  parseNotification,
  receivedPayload,
} from "../../../functions/src/domain/finding/finding.js";
import {
  findingPrint,
  OCCURRENCE_FIELDS,
  printDifferences,
  storedPrint,
} from "../../../functions/src/domain/finding/finding-print.js";
import { coveredBecause, differencesFromLead, groupSubject } from "../../../functions/src/domain/governor.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";

/**
 * Grouping covers a finding by its lead only when the two are equal on every field but those
 * that identify an occurrence (decision 0046). Checked on real findings from
 * test/fixtures/real/scc and a scenario, by generated single-field mutations at any path.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

const FIXTURES = [
  "test/fixtures/real/scc/sra-etd-iam-anomalous-grant.json",
  "test/fixtures/real/scc/secops-sensitive-data-risk-inactive.json",
  "test/fixtures/real/scc/secops-posture-violation-policy-delete.json",
  "test/fixtures/real/scc/leonardo-vmtd-cryptocurrency-mining-combined.json",
  "examples/scenarios/iam-anomalous-grant/notification.json",
];

/** The fixture as ingest compares it: its canonical notification. */
function canonical(file: string): Json {
  const payload: unknown = JSON.parse(readFileSync(fromRoot(file), "utf8"));
  return structuredClone(receivedPayload(parseNotification(payload))) as Json;
}

const isObject = (v: Json): v is { [key: string]: Json } =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Every path in the value (containers and leaves), the root excluded. */
function paths(value: Json, at: Path = []): Path[] {
  const out: Path[] = [];
  const entries: [string | number, Json][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : isObject(value)
      ? Object.entries(value)
      : [];
  for (const [k, v] of entries) out.push([...at, k], ...paths(v, [...at, k]));
  return out;
}

function get(value: Json, path: Path): Json | undefined {
  let cur: Json | undefined = value;
  for (const s of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = Array.isArray(cur) ? cur[s as number] : (cur as { [key: string]: Json })[s as string];
  }
  return cur;
}

function isOccurrence(path: Path): boolean {
  return OCCURRENCE_FIELDS.some(
    (f) =>
      f.path.length === path.length &&
      f.path.every((p, i) => (p === "*" ? typeof path[i] === "number" : p === path[i])),
  );
}

/** Whether the path is, or lies inside, an occurrence field. */
const withinOccurrence = (path: Path) => path.some((_, i) => isOccurrence(path.slice(0, i + 1)));

type Mutation =
  | { op: "change"; path: Path; value: Json }
  | { op: "remove"; path: Path }
  | { op: "add"; path: Path; key: string; value: Json };

function apply(payload: Json, m: Mutation): Json {
  const copy = structuredClone(payload);
  const parentPath = m.op === "add" ? m.path : m.path.slice(0, -1);
  const parent = parentPath.length === 0 ? copy : get(copy, parentPath);
  const last = m.path.at(-1) as string | number;
  if (m.op === "add") {
    if (Array.isArray(parent)) parent.push(m.value);
    else if (parent !== undefined && isObject(parent)) parent[m.key] = m.value;
  } else if (Array.isArray(parent)) {
    if (m.op === "remove") parent.splice(last as number, 1);
    else parent[last as number] = m.value;
  } else if (parent !== undefined && isObject(parent)) {
    if (m.op === "remove") delete parent[last as string];
    else parent[last as string] = m.value;
  }
  return copy;
}

/** The path a mutation touches: the changed or removed field, or the added one. */
function touched(payload: Json, m: Mutation): Path {
  if (m.op !== "add") return m.path;
  const parent = m.path.length === 0 ? payload : get(payload, m.path);
  return [...m.path, Array.isArray(parent) ? parent.length : m.key];
}

const value = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;

function mutations(payload: Json): fc.Arbitrary<Mutation> {
  const all = paths(payload);
  const containers = [[], ...all].filter((p) => {
    const v = p.length === 0 ? payload : get(payload, p);
    return v !== null && typeof v === "object";
  });
  return fc.oneof(
    fc.record({ op: fc.constant("change" as const), path: fc.constantFrom(...all), value }),
    fc.record({ op: fc.constant("remove" as const), path: fc.constantFrom(...all) }),
    fc.record({
      op: fc.constant("add" as const),
      path: fc.constantFrom(...containers),
      key: fc.string({ maxLength: 12 }),
      value,
    }),
  );
}

const covered = (lead: Json, member: Json) =>
  printDifferences(storedPrint(findingPrint(lead)), findingPrint(member)).length === 0;

describe("grouping by what may differ (decision 0046)", () => {
  for (const file of FIXTURES) {
    const name = file.split("/").at(-1);
    const lead = canonical(file);

    test(`${name}: any single-field change, removal or addition outside the occurrence fields leaves the member not covered`, () => {
      fc.assert(
        fc.property(mutations(lead), (m) => {
          const member = apply(lead, m);
          // A change to an equal value, or an addition that overwrote the same value, is no change.
          fc.pre(JSON.stringify(member) !== JSON.stringify(lead));
          fc.pre(!withinOccurrence(touched(lead, m)));
          const differences = printDifferences(storedPrint(findingPrint(lead)), findingPrint(member));
          assert.ok(differences.length > 0, `covered despite ${JSON.stringify(m)}`);
        }),
        { seed: 35, numRuns: 300 },
      );
    });

    test(`${name}: changes only to occurrence fields (name, times, log entry ids) leave the member covered`, () => {
      const present = paths(lead).filter(isOccurrence);
      const addable: Path[] = OCCURRENCE_FIELDS.map((f): Path => [...f.path]).filter(
        (p) => !p.includes("*") && get(lead, p.slice(0, -1)) !== undefined,
      );
      const occurrence = fc.oneof(
        fc.record({
          op: fc.constant("change" as const),
          path: fc.constantFrom(...addable, ...present),
          value,
        }),
        ...(present.length > 0
          ? [fc.record({ op: fc.constant("remove" as const), path: fc.constantFrom(...present) })]
          : []),
      );
      fc.assert(
        fc.property(fc.array(occurrence, { minLength: 1, maxLength: 4 }), (ms) => {
          const member = ms.reduce<Json>((p, m) => {
            // Set an absent occurrence field by adding it to its (present) parent.
            if (m.op === "change" && get(p, m.path) === undefined)
              return apply(p, {
                op: "add",
                path: m.path.slice(0, -1),
                key: String(m.path.at(-1)),
                value: m.value,
              });
            return apply(p, m);
          }, lead);
          assert.ok(covered(lead, member), `not covered after ${JSON.stringify(ms)}`);
        }),
        { seed: 35, numRuns: 200 },
      );
    });
  }

  test("a field nested 20,000 deep (a JSON-string sourceProperties may be) is compared to its leaf, without overflow", () => {
    const nest = (leaf: string) => {
      let v: Json = leaf;
      for (let i = 0; i < 20_000; i += 1) v = [v];
      return { finding: { name: "n", sourceProperties: { d: v } } };
    };
    const lead = storedPrint(findingPrint(nest("x")));
    assert.deepEqual(printDifferences(lead, findingPrint(nest("x"))), []);
    assert.match(
      printDifferences(lead, findingPrint(nest("y"))).join(" "),
      /finding\.sourceProperties\.d\[0\]/,
    );
  });

  test("the occurrence fields are few, and each says why it identifies an occurrence", () => {
    assert.ok(OCCURRENCE_FIELDS.length <= 12);
    for (const f of OCCURRENCE_FIELDS) assert.ok(f.why.length > 20, f.path.join("."));
  });
});

describe("the differences the issue lists each make a member examined on its own", () => {
  const REAL = JSON.parse(
    readFileSync(fromRoot("examples/scenarios/iam-anomalous-grant/notification.json"), "utf8"),
  ) as { finding: Record<string, unknown> & { access: Record<string, unknown> } };
  const received = (payload: unknown) => {
    const n = parseNotification(payload);
    return { finding: normalizeNotification(n), print: findingPrint(receivedPayload(n)) };
  };
  const lead = received(REAL);
  const subject = groupSubject(lead.finding, lead.print);
  const variant = (change: (f: Record<string, unknown> & { access: Record<string, unknown> }) => void) => {
    const copy = structuredClone(REAL);
    copy.finding.name = `${String(copy.finding.name)}-member`;
    change(copy.finding);
    return differencesFromLead(subject, received(copy).print).join(" | ");
  };
  type Change = (f: Record<string, unknown> & { access: Record<string, unknown> }) => void;
  const cases: [string, Change, RegExp][] = [
    [
      "a private caller address",
      (f) => {
        f.access.callerIp = "10.128.0.7";
      },
      /finding\.access\.callerIp is "10\.128\.0\.7"/,
    ],
    [
      "an exfiltration target",
      (f) => {
        f.exfiltration = { targets: [{ name: "//bigquery.googleapis.com/projects/evil/datasets/loot" }] };
      },
      /finding\.exfiltration/,
    ],
    [
      "a process",
      (f) => {
        f.processes = [{ binary: { path: "/tmp/xmrig" }, args: ["--donate-level=0"] }];
      },
      /finding\.processes/,
    ],
    [
      "a file",
      (f) => {
        f.files = [{ path: "/etc/cron.d/backdoor" }];
      },
      /finding\.files/,
    ],
    [
      "the severity",
      (f) => {
        f.severity = "CRITICAL";
      },
      /finding\.severity is "CRITICAL"/,
    ],
    [
      "the method",
      (f) => {
        f.access.methodName = "CreateServiceAccountKey";
      },
      /finding\.access\.methodName is "CreateServiceAccountKey"/,
    ],
  ];
  for (const [what, change, named] of cases)
    test(`a member differing from the lead only by ${what} is not covered, and the reason names it`, () => {
      assert.match(variant(change), named);
    });
  test("a member differing from the lead only by its name and times is covered", () => {
    const words = variant((f) => {
      f.eventTime = "2025-07-22T14:13:51.207Z";
      f.createTime = "2025-07-22T14:15:37.561Z";
      f.canonicalName = `${String(f.canonicalName)}-member`;
      f.securityMarks = { name: `${String(f.name)}/securityMarks` };
    });
    assert.equal(words, "");
    assert.match(coveredBecause(subject), /only its name, times and log entry ids differ/);
  });
});

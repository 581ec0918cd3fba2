import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import {
  filterLiteral,
  parseFindingName,
  readFinding,
} from "../../../functions/src/adapters/scc/finding-reader.js";
import { InvalidInputError } from "../../../functions/src/domain/errors.js";
import { parseFilter } from "../../../functions/src/local/scc-filter.js";
import { type SccStandIn, startSccStandIn } from "../../../functions/src/local/scc-stand-in.js";

/**
 * Issue 35 item 6, by generation: names built from the documented grammar (domain/finding/finding-name.ts)
 * read back whole and make a filter that says exactly `name = <that name>`; a name with one
 * segment broken by a code point from anywhere in Unicode is refused with the expected form;
 * and against the stand-in, no other finding under the same source answers for a name.
 */
process.env.METADATA_SERVER_DETECTION = "none";
const runs = { seed: 35_6, numRuns: 300 };

const digits = fc.stringMatching(/^[0-9]{1,19}$/);
const scope = fc.oneof(
  digits.map((id) => `organizations/${id}`),
  digits.map((id) => `folders/${id}`),
  fc.oneof(digits, fc.stringMatching(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/)).map((id) => `projects/${id}`),
);
const location = fc.option(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/));
const findingId = fc.stringMatching(/^[A-Za-z0-9]{1,32}$/);

interface Parts {
  scope: string;
  source: string;
  location: string | null;
  id: string;
}
const parts = fc.record({ scope, source: digits, location, id: findingId });
const nameOf = (p: Parts) =>
  `${p.scope}/sources/${p.source}${p.location === null ? "" : `/locations/${p.location}`}/findings/${p.id}`;
const parentOf = (p: Parts) =>
  `${p.scope}/sources/${p.source}${p.location === null ? "" : `/locations/${p.location}`}`;

describe("finding names by grammar (generated)", () => {
  it("every name the grammar builds reads back whole, and its filter is exactly name = <the name>", () => {
    fc.assert(
      fc.property(parts, (p) => {
        const name = nameOf(p);
        assert.deepEqual(parseFindingName(name), {
          name,
          parent: parentOf(p),
          version: p.location === null ? "v1" : "v2",
          scope: p.scope,
        });
        assert.deepEqual(parseFilter(`name=${filterLiteral(name)}`), {
          kind: "restriction",
          negated: false,
          field: "name",
          operator: "=",
          value: name,
        });
      }),
      runs,
    );
  });

  it("a name with a segment broken by any code point outside that segment's set is refused, saying the expected form", () => {
    const segmentSets: Record<string, RegExp> = {
      id: /[A-Za-z0-9]/,
      source: /[0-9]/,
      location: /[a-z0-9-]/,
    };
    const foreign = (set: RegExp) =>
      fc
        .integer({ min: 0, max: 0x10ffff })
        .filter((cp) => cp < 0xd800 || cp > 0xdfff)
        .map((cp) => String.fromCodePoint(cp))
        .filter((ch) => !set.test(ch));
    const broken = fc
      .tuple(parts, fc.constantFrom("id", "source", "location"), fc.nat())
      .chain(([p, segment, at]) =>
        foreign(segmentSets[segment] as RegExp).map((ch) => {
          const insert = (text: string) =>
            text.slice(0, at % (text.length + 1)) + ch + text.slice(at % (text.length + 1));
          if (segment === "id") return nameOf({ ...p, id: insert(p.id) });
          if (segment === "source") return nameOf({ ...p, source: insert(p.source) });
          return nameOf({ ...p, location: insert(p.location ?? "global") });
        }),
      );
    fc.assert(
      fc.property(broken, (name) => {
        assert.throws(
          () => parseFindingName(name),
          (e: unknown) =>
            e instanceof InvalidInputError &&
            /is not an SCC finding name: .+\. Expected organizations\|folders\|projects\//s.test(e.message),
        );
      }),
      runs,
    );
  });

  describe("against the SCC stand-in", () => {
    // One stand-in for every generated case (its protos take a while to load): each name among
    // decoys under the same source (a longer id, another id) and under another source.
    const cases = fc.sample(fc.tuple(parts, findingId, digits), { seed: 35_6, numRuns: 40 });
    const finding = (name: string) => ({
      name,
      parent: name.replace(/\/findings\/[^/]+$/, ""),
      state: "ACTIVE",
      category: "Persistence: IAM Anomalous Grant",
    });
    const names = cases.map(([p]) => nameOf(p));
    const decoys = cases
      .flatMap(([p, otherId, otherSource]) => [
        `${parentOf(p)}/findings/${`${p.id}0`.slice(0, 32)}`,
        `${parentOf(p)}/findings/${otherId}`,
        nameOf({ ...p, source: otherSource }),
      ])
      .filter((n) => !names.includes(n));
    let standIn: SccStandIn;
    before(async () => {
      standIn = await startSccStandIn({ findings: [...decoys, ...names].map(finding) });
    });
    after(() => standIn.close());

    it("no other finding answers for a name: not a longer id, another id, or the same id under another source", async () => {
      for (const name of names) {
        const read = (await readFinding(name, standIn.clientOptions)) as { finding: { name: string } };
        assert.equal(read.finding.name, name);
      }
    });
  });
});

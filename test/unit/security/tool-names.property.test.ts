import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type Config, toolAllowed } from "../../../functions/src/config/config.js";
import { type Approval, approvalFor, callDigest } from "../../../functions/src/domain/approval.js";
import {
  lookAlikeNames,
  patternsImitated,
  toolNameMatches,
  toolNameSkeleton,
} from "../../../functions/src/domain/tool-names.js";
import { confusables } from "../../../functions/src/unicode/confusables.js";
import { skeleton } from "../../../functions/src/unicode/skeleton.js";

/**
 * Issue 35 item 2, by generation: look-alikes are drawn from Unicode's confusables data itself
 * (every source character whose skeleton equals a letter's), invisible characters from the
 * Default_Ignorable_Code_Point property, other strings from the whole code point range.
 * Seeded and bounded: each property runs a few hundred cases in well under a second.
 */
const runs = { seed: 35_2, numRuns: 300 };

// Every character that looks like another, grouped by the skeleton they share; the base
// character itself is in its group. Built from the data, not written down.
const lookAlikesOf = (() => {
  const groups = new Map<string, Set<string>>();
  const add = (ch: string) => {
    const key = skeleton(ch);
    const group = groups.get(key) ?? new Set<string>([key]);
    group.add(ch);
    groups.set(key, group);
  };
  for (const source of confusables().prototypes.keys()) add(source);
  return (ch: string): string[] => [...(groups.get(skeleton(ch)) ?? [ch])];
})();

const invisible = (() => {
  const out: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    if (/\p{Default_Ignorable_Code_Point}/u.test(ch)) out.push(ch);
  }
  return out;
})();

/** A tool name as MCP servers and the config write them. */
const toolName = fc.stringMatching(/^[a-z][a-z0-9_]{2,24}$/);

/** A name made from `base` by replacing characters with look-alikes the data names. */
const imitationOf = (base: string) =>
  fc
    .tuple(
      ...[...base].map((ch) =>
        fc.tuple(fc.constantFrom(...lookAlikesOf(ch)), fc.option(fc.constantFrom(...invisible), { freq: 6 })),
      ),
    )
    .map((parts) => parts.map(([ch, hidden]) => ch + (hidden ?? "")).join(""))
    .filter((name) => name !== base);

const allowlistedAndImitation = toolName.chain((base) => fc.tuple(fc.constant(base), imitationOf(base)));

describe("tool names by skeleton (generated)", () => {
  it("the data and the runtime's normalization are the same Unicode version", () => {
    const [major, minor] = confusables().version.split(".");
    assert.equal(`${major}.${minor}`, process.versions.unicode);
  });

  it("any name with the allowlisted name's skeleton but other code points is refused: not allowed, imitates it, twin of it", () => {
    fc.assert(
      fc.property(allowlistedAndImitation, ([allowed, imitation]) => {
        assert.equal(toolNameMatches(allowed, imitation), false);
        assert.deepEqual(patternsImitated([allowed], imitation), [allowed]);
        assert.deepEqual(lookAlikeNames([allowed, imitation]).get(allowed), [imitation]);
        const config = { tools: { allow: ["*"], deny: [allowed] } } as unknown as Pick<Config, "tools">;
        assert.equal(toolAllowed(config, imitation), false, "a deny reaches the look-alike");
      }),
      runs,
    );
  });

  it("an approval binds the exact name: no look-alike of the approved tool is covered by it", () => {
    fc.assert(
      fc.property(allowlistedAndImitation, ([approved, imitation]) => {
        const args = { host: "etl-worker-1" };
        const approval: Approval = {
          investigationId: "inv-p",
          tool: `mcp.hosts.${approved}`,
          argsDigest: callDigest(`mcp.hosts.${approved}`, args),
          decision: "approved",
          decidedBy: "U0APPROVER",
          decidedAt: "2026-12-07T10:00:00.000Z",
        };
        assert.ok(approvalFor([approval], "inv-p", `mcp.hosts.${approved}`, args));
        assert.equal(approvalFor([approval], "inv-p", `mcp.hosts.${imitation}`, args), undefined);
      }),
      runs,
    );
  });

  it("a capital letter whose prototype is a small one (I → l) still makes a twin, case is folded after the mapping", () => {
    fc.assert(
      fc.property(
        toolName.filter((n) => n.includes("l")),
        fc.nat(),
        (allowed, pick) => {
          const at = [...allowed].flatMap((ch, i) => (ch === "l" ? [i] : []));
          const i = at[pick % at.length] ?? 0;
          const twin = `${allowed.slice(0, i)}I${allowed.slice(i + 1)}`;
          assert.equal(toolNameSkeleton(twin), toolNameSkeleton(allowed));
          assert.deepEqual(patternsImitated([allowed], twin), [allowed]);
        },
      ),
      runs,
    );
  });

  it("allowing is exact: a name matches a literal pattern if and only if the code points are equal, in any normalization form", () => {
    const form = fc.constantFrom("NFC", "NFD", "NFKC", "NFKD", undefined);
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 16 }), form, (text, nf) => {
        const pattern = text.replace(/[*?]/g, "");
        const name = nf ? pattern.normalize(nf) : pattern;
        assert.equal(toolNameMatches(pattern, name), pattern === name);
      }),
      runs,
    );
  });

  it("the look-alike key is settled: key(key(x)) = key(x), and a skeleton shares its string's key, over the whole code point range", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 24 }), (text) => {
        const key = toolNameSkeleton(text);
        assert.equal(toolNameSkeleton(key), key);
        assert.equal(toolNameSkeleton(skeleton(text)), key);
      }),
      runs,
    );
  });

  it("one skeleton pass is not always stable (U+048B), the key is", () => {
    assert.notEqual(skeleton(skeleton("\u048b")), skeleton("\u048b"));
    assert.equal(toolNameSkeleton("\u048b"), toolNameSkeleton(skeleton("\u048b")));
  });

  it("default-ignorable characters never change what a name looks like", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 16 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...invisible)), { maxLength: 4 }),
        (text, inserts) => {
          const chars = [...text];
          for (const [at, ch] of inserts) chars.splice(at % (chars.length + 1), 0, ch);
          assert.equal(skeleton(chars.join("")), skeleton(text));
        },
      ),
      runs,
    );
  });
});

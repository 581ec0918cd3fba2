import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  FilterSyntaxError,
  matchesFilter,
  misusedOperators,
  parseFilter,
  unknownFields,
} from "../../../functions/src/local/scc-filter.js";

/**
 * The stand-in's ListFindings filter follows ListFindingsRequest.filter as the v1/v2 references
 * document it: restrictions, `-` negation, AND / OR with OR binding tighter, parentheses, string
 * literals in quotes with no escapes, `=` and `:` (substring), `name` with `=` only.
 */
const finding = {
  name: "organizations/1/sources/2/findings/abc",
  parent: "organizations/1/sources/2",
  category: "C2: Bad IP",
  state: "ACTIVE",
};
const passes = (filter: string) => matchesFilter(parseFilter(filter), finding);

describe("the SCC filter syntax in the stand-in", () => {
  it("= compares whole values, : finds substrings, - negates", () => {
    assert.equal(passes('name="organizations/1/sources/2/findings/abc"'), true);
    assert.equal(passes('name = "organizations/1/sources/2/findings/ab"'), false);
    assert.equal(passes('category : "Bad"'), true);
    assert.equal(passes('-category : "Bad"'), false);
  });

  it("OR binds tighter than AND, as documented; parentheses group", () => {
    // a AND b OR c reads a AND (b OR c): false AND … is false, whatever c is.
    assert.equal(passes('state="INACTIVE" AND category="x" OR category="C2: Bad IP"'), false);
    assert.equal(passes('(state="INACTIVE" AND category="x") OR category="C2: Bad IP"'), true);
  });

  it("a filter widened past the name selects more findings: what a quote in a name would do", () => {
    assert.equal(passes('name="organizations/1/sources/2/findings/zzz" OR category="C2: Bad IP"'), true);
  });

  it("malformed filters are syntax errors: an open quote, an escape, a bare word, an open parenthesis", () => {
    for (const bad of ['name="abc', 'name="a\\"b"', "name=abc", '(name="a"', 'name="a" AND', 'name>="a"'])
      assert.throws(() => parseFilter(bad), FilterSyntaxError, bad);
  });

  it("name takes only =; fields the stand-in does not model are named", () => {
    assert.deepEqual(misusedOperators(parseFilter('name : "abc"')), ["name :"]);
    assert.deepEqual(misusedOperators(parseFilter('parent : "organizations/1"')), []);
    assert.deepEqual(unknownFields(parseFilter('source_properties.a = "b" AND name = "x"')), [
      "source_properties.a",
    ]);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidWorkflowError, loadWorkflow } from "./index.js";
import { run, runError } from "./test-support.js";

/** A workflow that assigns `vars`, then returns `${expr}` (single-quoted, as YAML needs for `: `). */
function exprWorkflow(expr: string, vars: string): string {
  const assign = vars ? `- init:\n    assign:\n${vars}\n` : "";
  return `${assign}- out:\n    return: '\${${expr.replaceAll("'", "''")}}'\n`;
}

async function evalExpr(expr: string, vars = ""): Promise<unknown> {
  return run(exprWorkflow(expr, vars));
}

async function evalError(expr: string, vars = ""): Promise<unknown> {
  return runError(exprWorkflow(expr, vars));
}

function tagsOf(payload: unknown): unknown {
  assert.ok(payload !== null && typeof payload === "object" && "tags" in payload, JSON.stringify(payload));
  return payload.tags;
}

describe("arithmetic and int/double typing", () => {
  it("keeps int arithmetic integral and `/` always a double", async () => {
    assert.equal(await evalExpr("7 / 2"), 3.5);
    // 4 / 2 is the double 2.0: string() shows the type that a plain JS number would lose.
    assert.equal(await evalExpr("string(4 / 2)"), "2.0");
    assert.equal(await evalExpr("string(4 * 2)"), "8");
    assert.equal(await evalExpr("string(1 + 1.0)"), "2.0");
  });

  it("floors with `//` and keeps the int type for int operands", async () => {
    assert.equal(await evalExpr("7 // 2"), 3);
    assert.equal(await evalExpr("-7 // 2"), -4);
    assert.equal(await evalExpr("string(7.0 // 2)"), "3.0");
  });

  it("computes `%` with the sign of the divisor, consistent with `//`", async () => {
    assert.equal(await evalExpr("7 % 3"), 1);
    assert.equal(await evalExpr("-7 % 3"), 2);
  });

  it("follows the documented precedence: * before +, comparisons before and/or", async () => {
    assert.equal(await evalExpr("1 + 2 * 3"), 7);
    assert.equal(await evalExpr("(1 + 2) * 3"), 9);
    assert.equal(await evalExpr("1 < 2 and 3 > 4 or 5 == 5"), true);
    assert.equal(await evalExpr("-2 * 3"), -6);
  });

  it("raises ZeroDivisionError for /, // and %", async () => {
    for (const expr of ["1 / 0", "1 // 0", "1 % 0"]) {
      assert.deepEqual(tagsOf(await evalError(expr)), ["ZeroDivisionError"], expr);
    }
  });

  it("raises TypeError when adding a string and a number", async () => {
    assert.deepEqual(tagsOf(await evalError('"a" + 1')), ["TypeError"]);
  });
});

describe("strings, comparisons and logic", () => {
  it("concatenates strings with +", async () => {
    assert.equal(await evalExpr('"a" + "b" + string(3)'), "ab3");
  });

  it("compares numbers across int and double, and strings lexicographically", async () => {
    assert.equal(await evalExpr("2 == 2.0"), true);
    assert.equal(await evalExpr('"abc" < "abd"'), true);
    assert.equal(await evalExpr("[1, 2] == [1, 2]"), true);
    assert.equal(await evalExpr('1 != "1"'), true);
  });

  it("requires booleans for and/or/not and short-circuits", async () => {
    assert.equal(await evalExpr("not true"), false);
    assert.equal(await evalExpr('not("a" in ["b"])'), true);
    // The right side would raise KeyError if evaluated.
    assert.equal(await evalExpr("false and m.missing", "      - m: {}"), false);
    assert.equal(await evalExpr("true or m.missing", "      - m: {}"), true);
    assert.deepEqual(tagsOf(await evalError("1 and true")), ["TypeError"]);
  });

  it("accepts upper-case logical operators", async () => {
    assert.equal(await evalExpr("NOT false AND true"), true);
  });

  it("checks list membership and map keys with `in`", async () => {
    assert.equal(await evalExpr('"b" in ["a", "b"]'), true);
    assert.equal(await evalExpr('"HttpError" in e.tags', '      - e: {tags: ["HttpError"]}'), true);
    assert.equal(await evalExpr('"k" in m', "      - m: {k: 1}"), true);
    assert.equal(await evalExpr('"z" in m', "      - m: {k: 1}"), false);
  });
});

describe("variables, fields and indexing", () => {
  const vars = '      - m: {a: {b: [10, 20]}, "special!key": 5}';

  it("reads nested fields and list elements", async () => {
    assert.equal(await evalExpr("m.a.b[1]", vars), 20);
    assert.equal(await evalExpr('m["a"]["b"][0]', vars), 10);
    assert.equal(await evalExpr('m["special!key"]', vars), 5);
  });

  it("raises KeyError for a missing key", async () => {
    const payload = await evalError("m.nope", vars);
    assert.deepEqual(tagsOf(payload), ["KeyError"]);
  });

  it("raises IndexError for an out-of-range or negative index", async () => {
    assert.deepEqual(tagsOf(await evalError("m.a.b[2]", vars)), ["IndexError"]);
    assert.deepEqual(tagsOf(await evalError("m.a.b[-1]", vars)), ["IndexError"]);
  });

  it("raises TypeError for field access on a non-map", async () => {
    assert.deepEqual(tagsOf(await evalError("m.a.b.c", vars)), ["TypeError"]);
  });

  it("does not mistake variables named like operators for operators", async () => {
    const names =
      "      - input: 1\n      - index: 2\n      - order: 3\n      - notes: 4\n      - android: 5";
    assert.equal(await evalExpr("input + index + order + notes + android", names), 15);
  });

  it("builds list and map literals", async () => {
    assert.deepEqual(await evalExpr('[1, "two", [3]]'), [1, "two", [3]]);
    assert.deepEqual(await evalExpr('{"a": 1 + 1, "b": [true]}'), { a: 2, b: [true] });
    assert.deepEqual(await evalExpr("{}"), {});
  });

  it("refuses at load time a read of a variable no earlier step assigns", () => {
    assert.throws(
      () => loadWorkflow(exprWorkflow("nobody", "")),
      (err: unknown) =>
        err instanceof InvalidWorkflowError && err.message.includes("variable 'nobody' is not defined"),
    );
  });
});

describe("expression functions", () => {
  it("len, keys and default", async () => {
    assert.equal(await evalExpr('len("héllo")'), 5);
    assert.equal(await evalExpr("len([1, 2, 3])"), 3);
    assert.deepEqual(await evalExpr("keys(m)", "      - m: {x: 1, y: 2}"), ["x", "y"]);
    assert.equal(await evalExpr('default(null, "d")'), "d");
    assert.equal(await evalExpr('default(0, "d")'), 0);
    assert.deepEqual(tagsOf(await evalError("len(1)")), ["TypeError"]);
  });

  it("map.get returns null for missing keys, also along a key path", async () => {
    const vars = "      - m: {a: {b: 1}}";
    assert.equal(await evalExpr('map.get(m, "a").b', vars), 1);
    assert.equal(await evalExpr('map.get(m, "zz")', vars), null);
    assert.equal(await evalExpr('map.get(m, ["a", "b"])', vars), 1);
    assert.equal(await evalExpr('map.get(m, ["a", "x", "y"])', vars), null);
    assert.equal(await evalExpr('default(map.get(m, "zz"), 7)', vars), 7);
  });

  it("list.concat appends one element to a copy", async () => {
    assert.deepEqual(await evalExpr('list.concat(["a"], "b")'), ["a", "b"]);
    assert.deepEqual(await evalExpr("list.concat([1], [2])"), [1, [2]]);
  });

  it("list.prepend puts one element in front of a copy", async () => {
    assert.deepEqual(await evalExpr('list.prepend(["a"], "b")'), ["b", "a"]);
    assert.deepEqual(await evalExpr("list.prepend([1], [2])"), [[2], 1]);
    assert.deepEqual(tagsOf(await evalError('list.prepend("a", 1)')), ["TypeError"]);
  });

  it("converts with int, double and string", async () => {
    assert.equal(await evalExpr('int("42")'), 42);
    assert.equal(await evalExpr("int(2.7)"), 2);
    assert.equal(await evalExpr("int(-2.7)"), -2);
    assert.equal(await evalExpr('double("2.5")'), 2.5);
    assert.equal(await evalExpr("string(double(2))"), "2.0");
    assert.equal(await evalExpr("string(true)"), "true");
    assert.deepEqual(tagsOf(await evalError('int("4x")')), ["ValueError"]);
    assert.deepEqual(tagsOf(await evalError("string([1])")), ["TypeError"]);
    // Only the argument types the expression helpers page lists (issue 36): a string is not one
    // of string()'s, an integer not one of int()'s, a double not one of double()'s.
    assert.deepEqual(tagsOf(await evalError('string("already text")')), ["TypeError"]);
    assert.deepEqual(tagsOf(await evalError("int(3)")), ["TypeError"]);
    assert.deepEqual(tagsOf(await evalError("double(2.5)")), ["TypeError"]);
  });

  it("encodes and decodes JSON", async () => {
    assert.equal(
      await evalExpr("json.encode_to_string(m)", '      - m: {a: [1, "x", null, true]}'),
      '{"a":[1,"x",null,true]}',
    );
    assert.equal(await evalExpr("json.encode_to_string(1 / 2)"), "0.5");
    assert.deepEqual(await evalExpr('json.decode("{\\"a\\": [1, 2.5]}")'), { a: [1, 2.5] });
    assert.equal(await evalExpr('string(json.decode("2.0"))'), "2.0");
    assert.deepEqual(tagsOf(await evalError('json.decode("{")')), ["ValueError"]);
  });

  it("indents JSON with the documented prefix/indent options", async () => {
    const out = await evalExpr(
      'json.encode_to_string(m, {"prefix": "", "indent": "  "})',
      "      - m: {a: [1]}",
    );
    assert.equal(out, '{\n  "a": [\n    1\n  ]\n}');
  });

  it("text.split and text.replace_all follow the documented edge cases", async () => {
    assert.deepEqual(await evalExpr('text.split("baaab", "aa")'), ["b", "ab"]);
    assert.deepEqual(await evalExpr('text.split("abbc", "b")'), ["a", "", "c"]);
    assert.deepEqual(await evalExpr('text.split("abc", "x")'), ["abc"]);
    assert.equal(await evalExpr('text.replace_all("Hello World", "Hello", "Goodbye")'), "Goodbye World");
    assert.equal(await evalExpr('text.replace_all("a$b", "$", "$&")'), "a$&b");
    assert.equal(await evalExpr('text.replace_all("ab", "", "-")'), "-a-b-");
    assert.deepEqual(tagsOf(await evalError('text.split("abc", "")')), ["ValueError"]);
  });

  it("time.format renders ISO 8601 with microseconds in UTC or a named zone", async () => {
    assert.equal(await evalExpr("time.format(1720788633)"), "2024-07-12T12:50:33.000000Z");
    assert.equal(
      await evalExpr('time.format(1720788633, "Europe/Paris")'),
      "2024-07-12T14:50:33.000000+02:00",
    );
    assert.equal(await evalExpr("time.format(1720788633.25)"), "2024-07-12T12:50:33.250000Z");
    assert.deepEqual(tagsOf(await evalError('time.format(0, "Mars/Olympus")')), ["ValueError"]);
  });

  it("sys.now and sys.get_env read the injected clock and environment", async () => {
    const yaml = `- out:
    return:
      - \${sys.now()}
      - \${sys.get_env("PROJECT")}
      - \${sys.get_env("NOPE")}
      - '\${sys.get_env("NOPE", "dflt")}'
`;
    const result = await run(yaml, undefined, { now: () => 1_500_000, env: { PROJECT: "p1" } });
    assert.deepEqual(result, [1500, "p1", null, "dflt"]);
  });
});

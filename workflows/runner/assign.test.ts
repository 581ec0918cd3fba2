import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { run, runError } from "./test-support.js";

describe("assign", () => {
  it("evaluates entries in order, each seeing the previous ones", async () => {
    const result = await run(`
- init:
    assign:
      - a: 1
      - b: \${a + 1}
      - a: \${b * 10}
- out:
    return: ['\${a}', '\${b}']
`);
    assert.deepEqual(result, [20, 2]);
  });

  it("writes dotted, quoted-key and indexed targets, creating missing leaf keys", async () => {
    const result = await run(`
- init:
    assign:
      - m: {inner: {}, list: [0, 0, 0]}
      - idx: 1
      - m.inner.created: yes
      - m["with space"]: 2
      - m.list[idx + 1]: 9
      - m.list[0]: \${m.list[2] + 1}
- out:
    return: \${m}
`);
    assert.deepEqual(result, { inner: { created: "yes" }, list: [10, 0, 9], "with space": 2 });
  });

  it("evaluates map keys written as expressions", async () => {
    const result = await run(`
- init:
    assign:
      - key: dyn
      - m:
          \${key}: 1
          '\${key + "2"}': 2
- out:
    return: \${m}
`);
    assert.deepEqual(result, { dyn: 1, dyn2: 2 });
  });

  it("copies values: changing a copy leaves the original untouched", async () => {
    const result = await run(`
- init:
    assign:
      - a: {x: 1}
      - b: \${a}
      - b.x: 2
- out:
    return: ['\${a.x}', '\${b.x}']
`);
    assert.deepEqual(result, [1, 2]);
  });

  it("raises KeyError for a missing intermediate key and IndexError past the end of a list", async () => {
    const missing = await runError("- a:\n    assign:\n      - m: {}\n      - m.x.y: 1\n");
    assert.deepEqual((missing as { tags: unknown }).tags, ["KeyError"]);
    const past = await runError("- a:\n    assign:\n      - l: [1]\n      - l[1]: 2\n");
    assert.deepEqual((past as { tags: unknown }).tags, ["IndexError"]);
  });

  it("keeps literal doubles as doubles", async () => {
    assert.equal(await run(`- a:\n    assign:\n      - d: 2.0\n- b:\n    return: \${string(d)}\n`), "2.0");
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  printConclusion,
  printEvent,
  printHeader,
  printPlan,
  printReflection,
  printStepResult,
} from "../../../functions/src/cli/progress.js";
import { terminalLine, terminalText } from "../../../functions/src/cli/terminal-text.js";
import * as fx from "../notify/fixtures.js";

const ESC = "\x1b";
/** What a hostile finding can put into any field the CLI prints. */
const PAYLOAD = [
  `${ESC}]0;pwned-title\x07`, // set the window title
  `${ESC}[2J${ESC}[H`, // clear the screen, cursor home
  `${ESC}]8;;https://osc8-target.invalid/x${ESC}\\click here${ESC}]8;;${ESC}\\`, // OSC-8 hyperlink
  "\x9b2J", // 8-bit CSI
  "\x9d2;c1-title\x9c", // 8-bit OSC
  `${ESC}[8mhidden${ESC}[0m`, // conceal
  "\u202Eexe.txt", // right-to-left override
  "\b\r\x07\x00", // backspace, carriage return, bell, NUL
  `${ESC}]2;open-ended`, // an OSC never terminated
].join("");

/** C0 (tab and newline aside), DEL, C1 and the bidi overrides that reorder what follows. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
/** The progress printer's own colour codes: the only escapes allowed through. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
const OWN_SGR = /\x1b\[[0-9;]*m/g;

describe("terminalText", () => {
  it("removes whole escape sequences, keeps link text and marks bidi controls", () => {
    const out = terminalText(`a${PAYLOAD}b`);
    assert.doesNotMatch(out, UNSAFE);
    assert.doesNotMatch(out, /pwned-title|osc8-target|c1-title|open-ended|2J|\]8;;/);
    assert.match(out, /click here/);
    assert.match(out, /⟦U\+202E⟧exe\.txt/);
    assert.ok(out.startsWith("a"));
  });

  it("keeps newlines in terminalText and collapses them in terminalLine", () => {
    assert.equal(terminalText("one\ntwo"), "one\ntwo");
    assert.equal(terminalLine("one\n  two\tthree"), "one two three");
    assert.equal(terminalLine("x".repeat(20), 10), `${"x".repeat(9)}…`);
  });
});

/**
 * Appends the payload to every string of a value so no printed field is missed; `op` is
 * spared because it selects which fields a plan update has.
 */
function poison<T>(value: T): T {
  if (typeof value === "string") return `${value}${PAYLOAD}` as T;
  if (Array.isArray(value)) return value.map(poison) as T;
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === "op" ? v : poison(v)])) as T;
  return value;
}

describe("the progress printer with a hostile value in every field", () => {
  it("prints no control or escape sequence of its input", () => {
    const lines: string[] = [];
    const p = { line: (l: string) => lines.push(l) };
    const inv = poison(fx.investigation({ status: "needs_human", conclusion: fx.conclusion() }));
    printHeader(p, inv);
    printPlan(p, inv);
    printStepResult(p, poison(fx.stepResult()));
    printReflection(p, poison(fx.reflection()));
    printEvent(p, poison(fx.event({ type: "step_started" })));
    printConclusion(p, inv);
    printConclusion(p, poison(fx.investigation({ status: "failed" })));
    assert.ok(lines.length > 20, `only ${lines.length} lines printed`);
    for (const line of lines) {
      const own = line.replace(OWN_SGR, "");
      assert.doesNotMatch(own, UNSAFE, JSON.stringify(line));
      assert.doesNotMatch(own, /pwned-title|osc8-target|c1-title/, JSON.stringify(line));
    }
    assert.ok(lines.some((l) => l.includes("click here")));
  });
});

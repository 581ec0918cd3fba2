import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { fromRoot } from "../../../functions/src/platform/paths.js";

/**
 * Test doubles live under test/ (issue 19): the deployed tree neither imports test or bench
 * code nor defines doubles of its own. The local stand-ins the demo runs (functions/src/local)
 * are production-legitimate and stay.
 */
const SRC = fromRoot("functions/src");
/** Trees that are not deployed (workflows/ is: its runner serves the local stack). */
const DEV_ONLY = [fromRoot("test"), fromRoot("bench"), fromRoot("scripts")];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Relative specifiers of static and dynamic imports and re-exports. */
function relativeImports(text: string): string[] {
  const found = text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["'](\.[^"']+)["']/g);
  return [...found].flatMap((m) => (m[1] ? [m[1]] : []));
}

describe("no test code in the deployed tree", () => {
  const files = sourceFiles(SRC);

  it("finds the source files and their imports (the scan itself works)", () => {
    assert.ok(files.length > 100, `only ${files.length} files found under ${SRC}`);
    const compose = readFileSync(join(SRC, "entry/compose.ts"), "utf8");
    assert.ok(relativeImports(compose).includes("../config/config.js"));
    assert.ok(relativeImports('await import("../x.js")').includes("../x.js"));
  });

  it("nothing under functions/src imports test/, bench/ or scripts/", () => {
    const outside = files.flatMap((file) =>
      relativeImports(readFileSync(file, "utf8"))
        .filter((spec) =>
          DEV_ONLY.some((dir) => !relative(dir, resolve(dirname(file), spec)).startsWith("..")),
        )
        .map((spec) => `${relative(SRC, file)} imports ${spec}`),
    );
    assert.deepEqual(outside, []);
  });

  it("no scripted, fake or stub model or store is defined under functions/src", () => {
    const doubles = files.flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/export\s+class\s+((?:Scripted|Fake|Stub|Mock)\w*)/g)].map(
        (m) => `${relative(SRC, file)}: ${m[1]}`,
      ),
    );
    assert.deepEqual(doubles, []);
  });
});

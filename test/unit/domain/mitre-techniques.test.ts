import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { SCC_TECHNIQUES, techniqueIds } from "../../../functions/src/domain/mitre-techniques.js";

/**
 * The table follows the SDK's own definition: each MitreAttack.Technique value in
 * google/cloud/securitycenter/v1/mitre_attack.proto is preceded by a comment with its ATT&CK id.
 */
function protoTechniques(): Record<string, string> {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve("@google-cloud/security-center/package.json"));
  const proto = readFileSync(
    join(root, "build/protos/google/cloud/securitycenter/v1/mitre_attack.proto"),
    "utf8",
  );
  const block = proto.slice(proto.indexOf("enum Technique"));
  const body = block.slice(0, block.indexOf("}"));
  return Object.fromEntries(
    [...body.matchAll(/\/\/\s*(T\d{4}(?:\.\d{3})?)\s*\n\s*([A-Z0-9_]+)\s*=\s*\d+;/g)].map((m) => [
      m[2],
      m[1],
    ]),
  );
}

describe("SCC technique names → ATT&CK ids", () => {
  it("matches the SDK's mitre_attack.proto exactly", () => {
    assert.deepEqual({ ...SCC_TECHNIQUES }, protoTechniques());
  });

  it("maps a finding's technique names and leaves unknown ones out", () => {
    assert.deepEqual(techniqueIds(["UNIX_SHELL", "unknown_name", "RESOURCE_HIJACKING"]), [
      "T1059.004",
      "T1496",
    ]);
  });
});

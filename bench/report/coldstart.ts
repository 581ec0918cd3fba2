import { COLD_IMPORT_TARGET_MS, type EntryImportTime } from "../coldstart/import-time.js";
import type { ColdStartSection } from "../coldstart/section.js";
import { kib, ms, table } from "../lib/table.js";

export function printColdStart(c: ColdStartSection): string {
  const imports = table(
    ["module graph of functions/src/index.ts", "import med", "p95", "process start → imported"],
    c.imports.map((i) =>
      i.error
        ? [i.variant, "failed", "", i.error.slice(0, 60)]
        : [i.variant, ms(i.importMs?.median), ms(i.importMs?.p95), ms(i.processToReadyMs?.median)],
    ),
  );
  const entries = table(
    [
      "function's cold import (index + its module)",
      "variant",
      "import med",
      "p95",
      `target < ${COLD_IMPORT_TARGET_MS} ms`,
      "+ runtime build med",
    ],
    (c.entryImports ?? []).map((e) =>
      e.error
        ? [e.entryPoint, e.variant, "failed", e.error.slice(0, 60), "", ""]
        : [
            e.entryPoint,
            e.variant,
            ms(e.importMs?.median),
            ms(e.importMs?.p95),
            targetCheck(e),
            ms(e.runtimeMs?.median),
          ],
    ),
  );
  const packages = table(
    ["direct dependency imported alone", "import"],
    c.packages.map((p) => [p.name, p.error ? `failed: ${p.error.slice(0, 50)}` : ms(p.importMs)]),
  );
  const servers = table(
    ["entry point", "variant", "listening", "1st request", "status", "2nd request"],
    c.servers.map((s) => [
      s.entryPoint,
      s.variant,
      s.error ? "failed" : ms(s.listeningMs),
      ms(s.firstRequestMs),
      s.firstStatus ?? "",
      ms(s.secondRequestMs),
    ]),
  );
  const b = c.bundle;
  const bundle = b.error
    ? `   bundle: ${b.error}`
    : [
        `   bundle (esbuild, node22, esm): full ${kib(b.full?.bytes)} (${kib(b.full?.minifiedBytes)} minified; external ${b.full?.external.join(", ")}),`,
        `   runnable ${kib(b.runnable?.bytes)} (external ${b.runnable?.external.join(", ")})`,
        `   largest inputs: ${(b.largestInputs ?? []).map((i) => `${i.path} ${kib(i.bytes)}`).join(", ")}`,
      ].join("\n");
  const build = c.build.built
    ? `   tsc build of the deploy tree: ${ms(c.build.buildMs)}${c.build.error ? ` (${c.build.error.slice(0, 120)})` : ""}`
    : `   dist not measured: ${c.build.error ?? "build failed"}`;
  return [
    "3. COLD START",
    build,
    bundle,
    "",
    imports,
    "",
    entries,
    `   ${coldImportVerdict(c.entryImports ?? [])}`,
    "",
    packages,
    "",
    servers,
  ].join("\n");
}

/** The target is for what is deployed: the tsc build (dist); the tsx source run is for reference. */
function targetCheck(e: EntryImportTime): string {
  if (!e.variant.startsWith("dist") || e.importMs === undefined) return "";
  return e.importMs.median < COLD_IMPORT_TARGET_MS ? "met" : "MISSED";
}

export function coldImportVerdict(entries: readonly EntryImportTime[]): string {
  const dist = entries.filter((e) => e.variant.startsWith("dist"));
  if (dist.length === 0) return "cold import target not checked: the dist build was not measured";
  const missed = dist.filter((e) => e.importMs === undefined || e.importMs.median >= COLD_IMPORT_TARGET_MS);
  return missed.length === 0
    ? `cold import target met: every function's median under ${COLD_IMPORT_TARGET_MS} ms (dist)`
    : `cold import target MISSED by ${missed.map((e) => e.entryPoint).join(", ")} (median >= ${COLD_IMPORT_TARGET_MS} ms or failed, dist)`;
}

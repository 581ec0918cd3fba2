import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Where a run directory keeps its Firestore export (`ferret console --run` imports it). */
export const FIRESTORE_EXPORT_DIR = "firestore-export";

/**
 * Exports everything the Firestore emulator holds for a project into `directory`, through the
 * emulator's own export endpoint (the same data `gcloud emulators firestore start
 * --import-data` reads back), so a run's documents outlive its emulator.
 */
export async function exportFirestoreEmulator(
  host: string,
  projectId: string,
  directory: string,
): Promise<void> {
  mkdirSync(directory, { recursive: true });
  const response = await fetch(
    `http://${host}/emulator/v1/projects/${encodeURIComponent(projectId)}:export`,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        database: `projects/${projectId}/databases/(default)`,
        export_directory: directory,
      }),
    },
  );
  if (!response.ok) {
    throw new Error(
      `the Firestore emulator refused the export (${response.status}): ${(await response.text()).slice(0, 300)}`,
    );
  }
  // The documents live under the project they were written in; whoever imports them reads that one.
  writeFileSync(join(directory, EXPORT_PROJECT_FILE), `${JSON.stringify({ projectId })}\n`);
}

const EXPORT_PROJECT_FILE = "project.json";

/** The project an export's documents were written under (`fallback` for exports older than the file). */
export function exportedProject(exportDir: string, fallback: string): string {
  const file = join(exportDir, EXPORT_PROJECT_FILE);
  if (!existsSync(file)) return fallback;
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { projectId?: unknown };
  return typeof parsed.projectId === "string" && parsed.projectId ? parsed.projectId : fallback;
}

/** The newest run under `.ferret/runs` that has a Firestore export, if any. */
export function newestExportedRun(runsDir: string): string | undefined {
  if (!existsSync(runsDir)) return undefined;
  return readdirSync(runsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(runsDir, e.name, FIRESTORE_EXPORT_DIR)))
    .map((e) => join(runsDir, e.name))
    .sort()
    .at(-1);
}

/**
 * What `--import-data` takes: the `.overall_export_metadata` file of the newest export in a
 * run's export directory (the emulator writes each export to a subdirectory of its own).
 */
export function importableExport(exportDir: string): string | undefined {
  if (!existsSync(exportDir)) return undefined;
  return readdirSync(exportDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) =>
      readdirSync(join(exportDir, e.name))
        .filter((f) => f.endsWith(".overall_export_metadata"))
        .map((f) => join(exportDir, e.name, f)),
    )
    .sort()
    .at(-1);
}

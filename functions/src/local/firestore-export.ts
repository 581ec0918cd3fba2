import { existsSync, mkdirSync, readdirSync } from "node:fs";
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

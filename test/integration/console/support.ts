import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import type { FirestoreInvestigationStore } from "../../../functions/src/adapters/firestore/investigation-store.js";
import { newInvestigation } from "../../../functions/src/app/ingest.js";
import { loadConfig } from "../../../functions/src/config/config.js";
import { normalizeNotification, parseNotification } from "../../../functions/src/domain/finding/finding.js";
import type { Investigation } from "../../../functions/src/domain/investigation.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { CHROMIUM_ARGS, chromiumExecutable } from "../../helpers/chromium.js";
import { conclusionFrom } from "./hostile.js";

/**
 * A headless Chromium with a fresh profile: the build the @sparticuz/chromium dev dependency
 * ships (test/helpers/chromium.ts). A browser that cannot start fails the test with the
 * reason: a console nobody tested in a browser is not tested.
 */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const executablePath = await chromiumExecutable();
  const profile = mkdtempSync(join(tmpdir(), "ferret-console-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1360, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/** Where the run leaves its screenshots (gitignored with the rest of .ferret/). */
export function screenshotDir(): string {
  const dir = fromRoot(".ferret/console-screenshots");
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A real SCC finding (test/fixtures/real/scc) with hostile markup written into its fields. */
export async function seedHostile(
  store: FirestoreInvestigationStore,
  strings: readonly string[],
): Promise<Investigation> {
  const published = JSON.parse(
    readFileSync(fromRoot("test/fixtures/real/scc/sra-etd-bad-ip.json"), "utf8"),
  ) as {
    finding: Record<string, unknown>;
  };
  const [script = "", img = "", attr = "", css = ""] = strings;
  // Test-made hostile variant of the published sample: every free-text field an attacker can
  // influence carries markup, script or CSS.
  const hostileFinding = {
    ...published.finding,
    category: `C2: Bad IP ${script}`,
    externalUri: "javascript:alert(document.domain)",
    description: `${img} ${css}`,
    sourceProperties: {
      ...(published.finding.sourceProperties as Record<string, unknown>),
      evil: `${attr} ${script}`,
    },
  };
  const finding = normalizeNotification(parseNotification({ finding: hostileFinding }));
  const config = loadConfig({ env: {} });
  const now = new Date();
  const fresh = newInvestigation(
    {
      ...finding,
      resource: { ...finding.resource, displayName: attr },
      access: { principalEmail: `${img}@evil.example` },
    },
    { config, now, modelName: "offline" },
  );
  await store.create(fresh, [{ type: "created", message: `created ${script}` }]);
  await store.update(fresh.id, (current) => ({
    investigation: {
      ...current,
      status: "concluded",
      plan: {
        objective: `Find out ${script}`,
        successCriteria: [img],
        constraints: [],
        revision: 0,
        steps: [
          {
            id: "s1",
            description: `Query ${img}`,
            tools: ["log_analysis"],
            expected: css,
            dependsOn: [],
            status: "done",
            addedInRevision: 0,
          },
          {
            id: "s2",
            description: attr,
            tools: ["threat_intel_lookup"],
            expected: "x",
            dependsOn: ["s1"],
            status: "cancelled",
            addedInRevision: 0,
            cancelReason: script,
          },
        ],
      },
      conclusion: conclusionFrom(strings),
      updatedAt: new Date().toISOString(),
    },
    events: [{ type: "concluded", message: `concluded ${css}` }],
  }));
  return (await store.get(fresh.id)) as Investigation;
}

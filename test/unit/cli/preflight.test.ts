import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import {
  checkApplicationDefaultCredentials,
  checkModel,
  checkSources,
} from "../../../functions/src/cli/preflight.js";
import { loadConfig } from "../../../functions/src/config/config.js";
import { ConfigError } from "../../../functions/src/domain/errors.js";
import { fromRoot } from "../../../functions/src/platform/paths.js";
import { apiError, FakeGemini } from "../../helpers/fake-gemini.js";

/**
 * What `ferret investigate` refuses before the stack starts (issue 26): no log source or
 * intel, the chosen provider's credentials missing, a retired model id. Each is refused in
 * seconds with what to do (exit 2), where the run used to start the stack and end `failed`
 * with "HTTP server responded with error code 422", or quietly fall back to the offline model.
 */
const run = promisify(execFile);
const home = mkdtempSync(join(tmpdir(), "ferret-preflight-home-"));
after(() => rmSync(home, { recursive: true, force: true }));

const config = (env: Record<string, string> = {}) => loadConfig({ env });

describe("checkSources", () => {
  it("refuses a run with neither logs nor intel, naming the flags that give them", () => {
    assert.throws(
      () => checkSources(config()),
      (e: unknown) =>
        e instanceof ConfigError &&
        /nothing to investigate with: no logs and no threat intel/.test(e.message) &&
        /--bigquery PROJECT\.DATASET/.test(e.message) &&
        /FERRET_STIX_BUNDLE/.test(e.message),
    );
  });

  it("refuses when tools.deny removes every tool the sources would give", () => {
    assert.throws(
      () => checkSources(config({ FERRET_DUCKDB_DIR: "/tmp/logs", FERRET_TOOLS_DENY: "log_*" })),
      /leave none of log_analysis, log_query, log_tables/,
    );
  });

  it("accepts logs, intel or BigQuery, and says which", () => {
    assert.equal(checkSources(config({ FERRET_DUCKDB_DIR: "/tmp/logs" })), "sources: logs (a log directory)");
    assert.equal(checkSources(config({ FERRET_STIX_BUNDLE: "/tmp/b.json" })), "sources: threat intel");
    assert.equal(
      checkSources(
        config({
          FERRET_LOG_WAREHOUSE: "bigquery",
          FERRET_BIGQUERY_PROJECT: "p",
          FERRET_BIGQUERY_DATASET: "d",
        }),
      ),
      "sources: logs (BigQuery)",
    );
  });
});

describe("checkModel", () => {
  const now = new Date("2026-11-27T00:00:00Z");
  const ok = async () => [];

  it("the offline model needs nothing", async () => {
    assert.deepEqual(
      await checkModel({ provider: "offline", config: config(), env: { GEMINI_API_KEY: "k" }, now }),
      ["model: the offline playbook model (no LLM)"],
    );
  });

  it("Vertex without application default credentials: refused with the gcloud command and the alternatives", async () => {
    await assert.rejects(
      checkModel({
        provider: "auto",
        config: config(),
        env: { GOOGLE_GENAI_USE_VERTEXAI: "true", GOOGLE_CLOUD_PROJECT: "acme-sec" },
        now,
        lookup: ok,
        adc: async () => {
          throw new Error(
            "Could not load the default credentials. Browse to https://cloud.google.com/docs/authentication/getting-started for more information.",
          );
        },
      }),
      (e: unknown) =>
        e instanceof ConfigError &&
        /^Vertex AI needs Google application default credentials, and none are usable: Could not load the default credentials/.test(
          e.message,
        ) &&
        /gcloud auth application-default login/.test(e.message) &&
        /set GEMINI_API_KEY/.test(e.message),
    );
  });

  it("a model id the provider answers 404 for is refused with the variable that names it", async () => {
    await assert.rejects(
      checkModel({
        provider: "auto",
        config: config({ FERRET_GEMINI_MODEL: "gemini-3.7-flash" }),
        env: { GEMINI_API_KEY: "k" },
        now,
        lookup: async () => [
          {
            model: "gemini-3.7-flash",
            ok: false,
            retryable: false,
            error: "Gemini 404 NOT_FOUND: models/gemini-3.7-flash is not found",
          },
          { model: "gemini-3.1-flash-lite", ok: true },
        ],
      }),
      /gemini-3\.7-flash \(FERRET_GEMINI_MODEL\): Gemini 404 NOT_FOUND/,
    );
  });

  it("an id ferret cannot place is refused with the reason, even when the provider knows it (issue 36)", async () => {
    await assert.rejects(
      checkModel({
        provider: "auto",
        config: config({ FERRET_GEMINI_MODEL: "gemini-9-imaginary" }),
        env: { GEMINI_API_KEY: "k" },
        now,
        lookup: async () => [{ model: "gemini-9-imaginary", ok: true }],
      }),
      /gemini-9-imaginary \(FERRET_GEMINI_MODEL\): gemini-9-imaginary is not a Gemini model ferret knows .*thinking and signature rules/,
    );
  });

  it("an alias is placed (issue 36): gemini-flash-latest passes the check", async () => {
    const lines = await checkModel({
      provider: "auto",
      config: config({ FERRET_GEMINI_MODEL: "gemini-flash-latest" }),
      env: { GEMINI_API_KEY: "k" },
      now,
      lookup: async () => [{ model: "gemini-flash-latest", ok: true }],
    });
    assert.match(lines.join("\n"), /gemini-flash-latest available/);
  });

  it("a model shut down by date is refused even when the provider cannot be asked", async () => {
    const lines = checkModel({
      provider: "auto",
      config: config({ FERRET_GEMINI_LITE_MODEL: "gemini-2.5-flash-lite" }),
      env: { GEMINI_API_KEY: "k" },
      now,
      lookup: async () => {
        throw new Error("getaddrinfo ENOTFOUND generativelanguage.googleapis.com");
      },
    });
    await assert.rejects(
      lines,
      /gemini-2\.5-flash-lite \(FERRET_GEMINI_LITE_MODEL\): gemini-2\.5-flash-lite was shut down on 2026-10-16/,
    );
  });

  it("a provider that cannot be reached is said, not refused", async () => {
    const lines = await checkModel({
      provider: "auto",
      config: config(),
      env: { GEMINI_API_KEY: "k" },
      now,
      lookup: async () => [
        { model: "gemini-3.5-flash", ok: false, retryable: true, error: "Gemini 503 UNAVAILABLE" },
      ],
    });
    assert.match(lines.join("\n"), /gemini-3\.5-flash: Gemini 503 UNAVAILABLE \(going on; the run retries\)/);
  });
});

describe("checkApplicationDefaultCredentials", () => {
  it("a credential source that never answers is refused within the timeout", async () => {
    await assert.rejects(
      checkApplicationDefaultCredentials(["reading the finding from SCC"], () => new Promise(() => {}), 50),
      /reading the finding from SCC needs Google application default credentials, and none are usable: no answer from the credential source within 0 s/,
    );
  });
});

/** The CLI as a new user runs it: no FERRET_* or emulator variables, no gcloud configuration. */
async function ferret(args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !k.startsWith("FERRET_") &&
        !k.endsWith("_EMULATOR_HOST") &&
        !k.startsWith("GOOGLE_") &&
        !k.startsWith("GEMINI_") &&
        !k.startsWith("CLOUDSDK_"),
    ),
  );
  const started = Date.now();
  try {
    const out = await run(
      process.execPath,
      ["--import", "tsx", fromRoot("functions/src/cli/main.ts"), ...args],
      {
        env: {
          ...clean,
          HOME: home,
          CLOUDSDK_CONFIG: join(home, "gcloud"),
          METADATA_SERVER_DETECTION: "none",
          ...env,
        },
        cwd: fromRoot(),
        timeout: 60_000,
      },
    );
    return { status: 0, stdout: out.stdout, stderr: out.stderr, ms: Date.now() - started };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { status: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "", ms: Date.now() - started };
  }
}

describe("ferret investigate refuses in seconds what would fail later (no stack started)", {
  timeout: 240_000,
}, () => {
  const bare = fromRoot("examples/scenarios/cryptomining/notification.json");
  let gemini: FakeGemini;
  before(async () => {
    // models.get answered as the Developer API answers it: 200 with the Model, or 404 NOT_FOUND
    // in the shape of the recorded body (test/fixtures/real/gemini/js-genai/…_with_error.json).
    gemini = await FakeGemini.start({
      respond: (request) => {
        const model = /\/models\/([^/:?]+)$/.exec(request.path.split("?")[0] ?? "")?.[1];
        if (request.method !== "GET" || !model)
          return apiError(400, "INVALID_ARGUMENT", `unexpected ${request.path}`);
        if (model === "gemini-2.5-flash")
          return apiError(
            404,
            "NOT_FOUND",
            `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
          );
        return {
          json: {
            name: `models/${model}`,
            displayName: model,
            supportedGenerationMethods: ["generateContent"],
          },
        };
      },
    });
  });
  after(() => gemini.stop());

  it("no logs and no intel (was: the stack started, then `failed`: HTTP server responded with error code 422)", async () => {
    const r = await ferret(["investigate", bare, "--json"]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /^ferret: nothing to investigate with: no logs and no threat intel are configured/,
    );
    assert.doesNotMatch(r.stderr, /HTTP|422/);
    assert.equal(r.stdout, "");
    assert.ok(r.ms < 45_000, `${r.ms} ms`);
  });

  it("Vertex on without application default credentials (was: the same 422 after the stack started)", async () => {
    const r = await ferret(["investigate", fromRoot("examples/scenarios/cryptomining")], {
      GOOGLE_GENAI_USE_VERTEXAI: "true",
      GOOGLE_CLOUD_PROJECT: "acme-sec",
      GOOGLE_CLOUD_LOCATION: "global",
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /ferret: Vertex AI needs Google application default credentials, and none are usable: /,
    );
    assert.match(r.stderr, /gcloud auth application-default login/);
    assert.ok(r.ms < 45_000, `${r.ms} ms`);
  });

  it("a retired model id (was: the run went on, on the offline model)", async () => {
    const r = await ferret(["investigate", fromRoot("examples/scenarios/cryptomining")], {
      GEMINI_API_KEY: "test-key",
      GOOGLE_GEMINI_BASE_URL: gemini.url,
      FERRET_GEMINI_MODEL: "gemini-2.5-flash",
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /ferret: the Gemini Developer API cannot serve the configured model: gemini-2\.5-flash \(FERRET_GEMINI_MODEL\): Gemini 404 NOT_FOUND: models\/gemini-2\.5-flash is not found/,
    );
    assert.match(r.stderr, /Set the variable to a current model/);
    assert.ok(
      gemini.requests.some((q) => q.method === "GET" && q.path.includes("/models/gemini-2.5-flash")),
      "asked the provider (models.get)",
    );
  });
});

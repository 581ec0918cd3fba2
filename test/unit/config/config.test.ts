import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type Config, globMatch, loadConfig, toolAllowed } from "../../../functions/src/config/config.js";
import { DEFAULT_PRICES, DEFAULT_ROLE_SETTINGS } from "../../../functions/src/config/model-settings.js";
import { ConfigError } from "../../../functions/src/domain/errors.js";
import { DEFAULT_POLICY } from "../../../functions/src/domain/policy.js";

const dir = mkdtempSync(join(tmpdir(), "ferret-config-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
function configFile(text: string): string {
  const path = join(dir, `config-${++fileCount}.yaml`);
  writeFileSync(path, text);
  return path;
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    assert.equal(error.code, "config");
    assert.equal(error.retryable, false);
    return error;
  }
  assert.fail("expected a ConfigError, nothing was thrown");
}

const FILE = `
model:
  provider: offline
agent:
  maxSteps: 6
  maxParallelSteps: 2
  reflection: on_error
ingest:
  minimumSeverity: MEDIUM
  ignoreCategories:
    - "Discovery: *"
tools:
  deny: ["intel_otx"]
logs:
  warehouse: duckdb
  duckdbDir: ./examples/logs
memory:
  minSimilarity: 0.75
`;

describe("loadConfig defaults", () => {
  it("fills every section with the documented defaults when there is no file and no variable", () => {
    const config = loadConfig({ env: {} });
    assert.deepEqual(config.agent, DEFAULT_POLICY);
    assert.deepEqual(config.agent, {
      maxSteps: 10,
      maxParallelSteps: 4,
      maxStepIterations: 6,
      maxToolCallsPerTurn: 4,
      maxRevisions: 3,
      maxConsecutiveFailures: 3,
      reflection: "every_wave",
      plannedCalls: "run",
      foldLastReflection: true,
      tokenBudget: 400_000,
      stepDeadlineSeconds: 300,
      totalDeadlineSeconds: 1_800,
    });
    const { roles, prices, ...model } = config.model;
    assert.deepEqual(model, {
      provider: "auto",
      geminiModel: "gemini-3.8-flash",
      geminiLiteModel: "gemini-3.1-flash-lite",
      embeddingModel: "gemini-embedding-001",
      timeoutMs: 90_000,
      maxRetryWaitMs: 60_000,
      contextWindowTokens: 1_048_576,
      compressAt: 0.7,
      fallbackToOffline: true,
      offlineRetryAfterSeconds: 300,
      offlineDismissals: "hold",
    });
    assert.deepEqual(roles, DEFAULT_ROLE_SETTINGS);
    assert.deepEqual(prices, DEFAULT_PRICES);
    assert.deepEqual(config.ingest, {
      ignoreCategories: [],
      minimumSeverity: "LOW",
      skipMuted: true,
      skipInactive: true,
      unspecifiedSeverity: "investigate",
    });
    assert.deepEqual(config.tools, { allow: ["*"], deny: [] });
    assert.deepEqual(config.memory, { minSimilarity: 0.8, maxRecalled: 32 });
    assert.equal(config.logs.warehouse, "duckdb");
    assert.equal(config.logs.maxBytesBilled, 10 * 1024 ** 3);
    assert.equal(config.logs.maxBytesPerInvestigation, 50 * 1024 ** 3);
    assert.equal(config.firestore.databaseId, "(default)");
  });

  it("ignores empty variables", () => {
    assert.deepEqual(
      loadConfig({ env: { FERRET_MAX_STEPS: "", FERRET_REFLECTION: "" } }).agent,
      DEFAULT_POLICY,
    );
  });
});

describe("budgets that stop work", () => {
  it("reads the per-turn tool-call cap and the per-investigation scan budget from their variables", () => {
    const config = loadConfig({
      env: {
        FERRET_MAX_TOOL_CALLS_PER_TURN: "2",
        FERRET_BIGQUERY_MAX_BYTES_BILLED: "1000",
        FERRET_BIGQUERY_MAX_BYTES_PER_INVESTIGATION: "5000",
      },
    });
    assert.equal(config.agent.maxToolCallsPerTurn, 2);
    assert.equal(config.logs.maxBytesPerInvestigation, 5_000);
  });

  it("refuses a scan budget smaller than one query at the per-query cap, naming the variable and the cap", () => {
    assert.throws(
      () =>
        loadConfig({
          env: {
            FERRET_BIGQUERY_MAX_BYTES_BILLED: "1000",
            FERRET_BIGQUERY_MAX_BYTES_PER_INVESTIGATION: "999",
          },
        }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /FERRET_BIGQUERY_MAX_BYTES_PER_INVESTIGATION/.test(error.message) &&
        /logs\.maxBytesBilled/.test(error.message),
    );
  });

  it("refuses a per-turn cap of 0: a turn must be able to run a tool", () => {
    assert.throws(
      () => loadConfig({ env: { FERRET_MAX_TOOL_CALLS_PER_TURN: "0" } }),
      /FERRET_MAX_TOOL_CALLS_PER_TURN/,
    );
  });
});

describe("loadConfig from a YAML file", () => {
  it("reads the file and keeps defaults for what it does not set", () => {
    const config = loadConfig({ file: configFile(FILE), env: {} });
    assert.equal(config.model.provider, "offline");
    assert.equal(config.model.geminiModel, "gemini-3.8-flash");
    assert.deepEqual(config.agent, {
      ...DEFAULT_POLICY,
      maxSteps: 6,
      maxParallelSteps: 2,
      reflection: "on_error",
    });
    assert.deepEqual(config.ingest.ignoreCategories, ["Discovery: *"]);
    assert.equal(config.ingest.minimumSeverity, "MEDIUM");
    assert.deepEqual(config.tools, { allow: ["*"], deny: ["intel_otx"] });
    assert.equal(config.logs.duckdbDir, "./examples/logs");
    assert.equal(config.memory.minSimilarity, 0.75);
  });

  it("finds the file through FERRET_CONFIG", () => {
    const config = loadConfig({ env: { FERRET_CONFIG: configFile(FILE) } });
    assert.equal(config.agent.maxSteps, 6);
  });

  it("accepts an empty file", () => {
    assert.deepEqual(loadConfig({ file: configFile(""), env: {} }).agent, DEFAULT_POLICY);
  });
});

describe("FERRET_* overrides", () => {
  it("beat the file, typed per variable, and leave the file's other keys alone", () => {
    const config = loadConfig({
      file: configFile(FILE),
      env: {
        FERRET_MAX_STEPS: "8",
        FERRET_REFLECTION: "every_step",
        FERRET_FALLBACK_TO_OFFLINE: "false",
        FERRET_SKIP_MUTED: "0",
        FERRET_TOOLS_DENY: " intel_otx, logs_* ,, ",
        FERRET_MIN_SEVERITY: "HIGH",
        FERRET_COMPRESS_AT: "0.5",
        FERRET_OFFLINE_DISMISSALS: "allow",
      },
    });
    assert.equal(config.agent.maxSteps, 8);
    assert.equal(config.agent.reflection, "every_step");
    assert.equal(config.agent.maxParallelSteps, 2, "from the file");
    assert.equal(config.model.fallbackToOffline, false);
    assert.equal(config.ingest.skipMuted, false);
    assert.deepEqual(config.tools.deny, ["intel_otx", "logs_*"]);
    assert.equal(config.ingest.minimumSeverity, "HIGH");
    assert.deepEqual(config.ingest.ignoreCategories, ["Discovery: *"], "from the file");
    assert.equal(config.model.compressAt, 0.5);
    assert.equal(config.model.offlineDismissals, "allow");
    assert.equal(config.model.provider, "offline", "from the file");
  });

  it("work without a file", () => {
    const config = loadConfig({
      env: { FERRET_MAX_REVISIONS: "0", FERRET_TOOLS_ALLOW: "intel_*,logs_query" },
    });
    assert.equal(config.agent.maxRevisions, 0);
    assert.deepEqual(config.tools.allow, ["intel_*", "logs_query"]);
  });
});

describe("invalid configuration fails with the variable or key named", () => {
  it("FERRET_MAX_STEPS=abc is not a number", () => {
    const error = configError(() => loadConfig({ env: { FERRET_MAX_STEPS: "abc" } }));
    assert.equal(error.message, 'FERRET_MAX_STEPS="abc" is not a number');
  });

  it("FERRET_REFLECTION=sometimes is not a reflection mode", () => {
    const error = configError(() => loadConfig({ env: { FERRET_REFLECTION: "sometimes" } }));
    assert.match(error.message, /^invalid configuration: FERRET_REFLECTION: /);
    assert.match(error.message, /every_step/, "the allowed values are listed");
  });

  it("FERRET_MAX_STEPS=0 is below the minimum, even when the file is valid", () => {
    const error = configError(() => loadConfig({ file: configFile(FILE), env: { FERRET_MAX_STEPS: "0" } }));
    assert.match(error.message, /^invalid configuration: FERRET_MAX_STEPS: /);
  });

  it("FERRET_SKIP_MUTED=maybe is not a boolean", () => {
    const error = configError(() => loadConfig({ env: { FERRET_SKIP_MUTED: "maybe" } }));
    assert.equal(error.message, 'FERRET_SKIP_MUTED="maybe" is not a boolean (use true or false)');
  });

  it("a file with maxSteps: 0 names the file and the key", () => {
    const file = configFile("agent:\n  maxSteps: 0\n");
    const error = configError(() => loadConfig({ file, env: {} }));
    assert.match(error.message, new RegExp(`^invalid configuration: ${file}: agent\\.maxSteps: `));
    assert.equal((error.details?.problems as string[] | undefined)?.length, 1);
  });

  it("a file value of the wrong type names the key", () => {
    const file = configFile("tools:\n  allow: intel_*\n");
    assert.match(configError(() => loadConfig({ file, env: {} })).message, /tools\.allow: /);
  });

  it("lists every problem at once", () => {
    const file = configFile("agent:\n  maxSteps: 0\n  reflection: sometimes\n");
    const error = configError(() => loadConfig({ file, env: { FERRET_COMPRESS_AT: "2" } }));
    assert.deepEqual(error.details?.problems, [
      "FERRET_COMPRESS_AT: Too big: expected number to be <=0.95",
      `${file}: agent.maxSteps: Too small: expected number to be >=1`,
      `${file}: agent.reflection: Invalid option: expected one of "every_step"|"every_wave"|"on_error"`,
    ]);
  });

  it("a misspelled key is an error, not silently ignored", () => {
    const file = configFile("tools:\n  denied: [intel_otx]\n");
    const error = configError(() => loadConfig({ file, env: {} }));
    assert.equal(error.message, `invalid configuration: ${file}: tools: Unrecognized key: "denied"`);
  });

  it("a policy key at the top level instead of under agent is an error", () => {
    const file = configFile("maxSteps: 0\n");
    const error = configError(() => loadConfig({ file, env: {} }));
    assert.equal(error.message, `invalid configuration: ${file}: Unrecognized key: "maxSteps"`);
  });

  it("a misspelled agent key is an error", () => {
    const file = configFile("agent:\n  maxStep: 5\n");
    assert.match(
      configError(() => loadConfig({ file, env: {} })).message,
      /agent: Unrecognized key: "maxStep"/,
    );
  });

  it("a file that is not YAML is a ConfigError naming the file", () => {
    const file = configFile("agent:\n  maxSteps: [1, 2\n");
    const error = configError(() => loadConfig({ file, env: {} }));
    assert.ok(error.message.startsWith(`config file ${file} is not valid YAML: `), error.message);
  });

  it("a file that is a list, not a mapping", () => {
    const file = configFile("- maxSteps: 5\n");
    assert.equal(
      configError(() => loadConfig({ file, env: {} })).message,
      `config file ${file} must hold a mapping at the top level`,
    );
  });

  it("a file that cannot be read", () => {
    const file = join(dir, "missing.yaml");
    assert.match(
      configError(() => loadConfig({ file, env: {} })).message,
      /^cannot read config file .*missing\.yaml/,
    );
  });
});

describe("tool allow/deny globs", () => {
  const tools = (allow: string[], deny: string[]): Pick<Config, "tools"> => ({ tools: { allow, deny } });
  const names = ["intel_stix", "intel_otx", "logs_query", "logs_schema", "asset_inventory"];

  it("allows every tool by default", () => {
    const config = loadConfig({ env: {} });
    assert.deepEqual(
      names.filter((n) => toolAllowed(config, n)),
      names,
    );
  });

  it("needs an allow match and no deny match", () => {
    const config = tools(["intel_*", "logs_query"], ["*_otx"]);
    assert.deepEqual(
      names.filter((n) => toolAllowed(config, n)),
      ["intel_stix", "logs_query"],
    );
  });

  it("lets deny win over allow", () => {
    assert.equal(toolAllowed(tools(["*"], ["logs_*"]), "logs_query"), false);
    assert.equal(toolAllowed(tools(["logs_query"], ["logs_query"]), "logs_query"), false);
  });

  it("applies FERRET_TOOLS_DENY from the environment", () => {
    const config = loadConfig({ env: { FERRET_TOOLS_DENY: "intel_*" } });
    assert.deepEqual(
      names.filter((n) => toolAllowed(config, n)),
      ["logs_query", "logs_schema", "asset_inventory"],
    );
  });

  it("globMatch: * and ? are wildcards, everything else is literal, case-insensitive, anchored", () => {
    assert.equal(globMatch("intel_*", "intel_"), true);
    assert.equal(globMatch("intel_?tx", "intel_otx"), true);
    assert.equal(globMatch("intel_?tx", "intel_ootx"), false);
    assert.equal(globMatch("logs.query", "logs.query"), true);
    assert.equal(globMatch("logs.query", "logsXquery"), false, "a dot is not a regex wildcard");
    assert.equal(globMatch("a+b", "aab"), false);
    assert.equal(globMatch("(x)", "(x)"), true);
    assert.equal(globMatch("Discovery: *", "discovery: Service Account Self-Investigation"), true);
    assert.equal(globMatch("intel", "intel_otx"), false, "anchored at both ends");
    assert.equal(globMatch("otx", "intel_otx"), false);
  });
});

describe("loadConfig: per-role model settings", () => {
  it("overlays a role's file settings on its defaults and adds prices to the table", () => {
    const file = configFile(
      [
        "model:",
        "  roles:",
        "    executor: { model: main, thinkingLevel: high }",
        "  prices:",
        '    "gemini-4-flash": { input: 2, cachedInput: 0.2, output: 10 }',
      ].join("\n"),
    );
    const config = loadConfig({ file, env: { FERRET_GEMINI_TIMEOUT_MS: "30000" } });
    assert.deepEqual(config.model.roles.executor, {
      ...DEFAULT_ROLE_SETTINGS.executor,
      model: "main",
      thinkingLevel: "high",
    });
    assert.deepEqual(config.model.roles.planner, DEFAULT_ROLE_SETTINGS.planner);
    assert.deepEqual(config.model.prices["gemini-4-flash"], { input: 2, cachedInput: 0.2, output: 10 });
    assert.deepEqual(config.model.prices["gemini-3.5-flash"], DEFAULT_PRICES["gemini-3.5-flash"]);
    assert.equal(config.model.timeoutMs, 30_000);
  });

  it("rejects an unknown role, an unknown thinking level and a negative price", () => {
    for (const yaml of [
      "model: { roles: { summarizer: { model: lite } } }",
      "model: { roles: { planner: { thinkingLevel: extreme } } }",
      'model: { prices: { "gemini-3.5-flash": { input: -1, cachedInput: 0, output: 1 } } }',
    ]) {
      assert.throws(() => loadConfig({ file: configFile(yaml), env: {} }), ConfigError, yaml);
    }
  });
});

describe("loadConfig refuses what would silently disable a setting (issue 16)", () => {
  it("names an unknown FERRET_* variable and suggests the one it resembles", () => {
    const error = configError(() => loadConfig({ env: { FERRET_TOOLS_DNY: "intel_*" } }));
    assert.match(
      error.message,
      /FERRET_TOOLS_DNY is not a ferret variable \(did you mean FERRET_TOOLS_DENY\?\)/,
    );
    const far = configError(() => loadConfig({ env: { FERRET_BANANA: "1" } }));
    assert.match(far.message, /FERRET_BANANA is not a ferret variable/);
    assert.doesNotMatch(far.message, /did you mean/);
  });

  it("accepts every FERRET_* variable the code reads outside the overlay", () => {
    const env = {
      FERRET_LOG_LEVEL: "ERROR",
      FERRET_CHAT_FILE: "/tmp/x.jsonl",
      FERRET_SLACK_API_URL: "http://127.0.0.1:1/",
      FERRET_WORKFLOWS_URL: "http://127.0.0.1:2",
      FERRET_WORKFLOW_NAME: "w",
      FERRET_WORKFLOW_LOCATION: "us-central1",
      FERRET_GEMINI_TIMEOUT_MS: "10000",
      FERRET_PLANNER_URL: "http://127.0.0.1:3",
      FERRET_STEP_EXECUTOR_URL: "http://127.0.0.1:4",
      FERRET_REFLECTOR_URL: "http://127.0.0.1:5",
      FERRET_CONCLUDER_URL: "http://127.0.0.1:6",
      FERRET_COMPRESSOR_URL: "http://127.0.0.1:7",
      NOT_OURS: "ignored",
    };
    assert.equal(loadConfig({ env }).model.provider, "auto");
  });

  it("refuses a list variable of only separators instead of allowing no tool", () => {
    const error = configError(() => loadConfig({ env: { FERRET_TOOLS_ALLOW: " , ,," } }));
    assert.match(error.message, /FERRET_TOOLS_ALLOW=" , ,," holds only separators/);
  });

  it("refuses an empty tools.allow in the file", () => {
    const error = configError(() => loadConfig({ file: configFile("tools:\n  allow: []\n"), env: {} }));
    assert.match(error.message, /tools\.allow: an empty allowlist would let no tool run/);
  });

  it("refuses a step deadline longer than the investigation's, naming the variable", () => {
    const error = configError(() =>
      loadConfig({ env: { FERRET_STEP_DEADLINE_SECONDS: "900", FERRET_TOTAL_DEADLINE_SECONDS: "600" } }),
    );
    assert.match(error.message, /FERRET_STEP_DEADLINE_SECONDS: a step's deadline \(900s\) cannot exceed/);
    const equal = loadConfig({
      env: { FERRET_STEP_DEADLINE_SECONDS: "600", FERRET_TOTAL_DEADLINE_SECONDS: "600" },
    });
    assert.equal(equal.agent.stepDeadlineSeconds, 600);
  });
});

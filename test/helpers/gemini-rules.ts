import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * What Gemini refuses, per model family, as the fake Gemini server enforces it. Every rule
 * names the page or source it follows; where a refusal's wording was recorded (a body a user
 * pasted into a public issue, kept under test/fixtures/real/gemini/issues with PROVENANCE), the
 * fake answers with that body, only the names and numbers in its message swapped for the
 * request's. A rule whose wording nobody recorded says so in `wording`.
 *
 * SDK version the rules were checked against: @google/genai 3.1.0 (package-lock integrity
 * sha512-fKLeRkpU…), whose generateContent request converters decide what reaches the wire.
 */

export type Backend = "developer" | "vertex";

export interface Family {
  model: string;
  /** 2 for gemini-2.5-flash, 3 for gemini-3.1-flash-lite; undefined when not a Gemini id. */
  generation: number | undefined;
  /** "2.5" for gemini-2.5-pro, "3.1" for gemini-3.1-pro-preview. */
  version: string | undefined;
  tier: "pro" | "flash" | "flash-lite" | "other";
  /** Image models (gemini-3-pro-image-preview): Vertex documents they do not validate signatures. */
  image: boolean;
}

export function familyOf(requested: string): Family {
  const model = answeringModel(requested);
  const match = /(?:^|\/)gemini-(\d+)(?:\.(\d+))?-([a-z-]+)/.exec(model);
  if (!match) return { model, generation: undefined, version: undefined, tier: "other", image: false };
  const rest = match[3] ?? "";
  const tier = rest.startsWith("flash-lite")
    ? "flash-lite"
    : rest.startsWith("flash")
      ? "flash"
      : rest.startsWith("pro")
        ? "pro"
        : "other";
  return {
    model,
    generation: Number(match[1]),
    version: match[2] === undefined ? match[1] : `${match[1]}.${match[2]}`,
    tier,
    image: /-image\b/.test(rest),
  };
}

/**
 * The `-latest` aliases the models list names (https://ai.google.dev/gemini-api/docs/models: each
 * points at the newest release of its variation) and the deprecated ids whose requests another
 * model answers (https://ai.google.dev/gemini-api/docs/deprecations and the changelog entry on
 * gemini-3.5-flash), as the fake serves them in December 2026: the answer's modelVersion names
 * the model that answered, and that model's family decides the rules.
 */
const SERVED_BY: Readonly<Record<string, string>> = {
  "gemini-flash-latest": "gemini-3.8-flash",
  "gemini-flash-lite-latest": "gemini-3.5-flash-lite",
  "gemini-pro-latest": "gemini-3.1-pro-preview",
  "gemini-3.5-flash": "gemini-3.6-flash",
};

/** The model that answers a request to `model` (itself unless aliased or routed). */
export function answeringModel(model: string): string {
  const id = model.replace(/^.*\//, "");
  return SERVED_BY[id] ?? id;
}

/** The model id and backend a generateContent path names, or undefined for other methods. */
export function routeOf(path: string): { model: string; backend: Backend; method: string } | undefined {
  const match = /\/models\/([^/:?]+):([A-Za-z]+)/.exec(path);
  if (!match) return undefined;
  return {
    model: decodeURIComponent(match[1]!),
    backend: path.includes("/publishers/google/") ? "vertex" : "developer",
    method: match[2]!,
  };
}

/**
 * The dummy signatures Google documents for function calls the model did not make:
 * https://ai.google.dev/gemini-api/docs/thought-signatures#faqs ("context_engineering_is_the_way_to_go"
 * or "skip_thought_signature_validator") and
 * https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures#using-rest-or-manual-handling
 * ("skip_thought_signature_validator"). The field is `bytes` on the wire, and the two spellings
 * in use are contested: google-genai for Python sends the base64 of the text, the Vertex page and
 * google-gemini/gemini-cli send the text itself, and other SDKs report live 400s with one or the
 * other on one backend (RooCodeInc/Roo-Code#10759, bobrware/bobrchat#120). By default both are
 * accepted; `DummySpelling` makes a fake accept only one per backend, so both are tested.
 */
export type DummySpelling = "literal" | "base64";
const DUMMY_TEXTS = ["skip_thought_signature_validator", "context_engineering_is_the_way_to_go"];
const spelled = (spelling: DummySpelling) =>
  DUMMY_TEXTS.map((text) => (spelling === "literal" ? text : Buffer.from(text, "utf8").toString("base64")));
export const DUMMY_SIGNATURES: ReadonlySet<string> = new Set([...spelled("literal"), ...spelled("base64")]);

/** The dummies a backend takes: both spellings, or only the one it is configured with. */
function acceptedDummies(spelling: DummySpelling | undefined): ReadonlySet<string> {
  return spelling ? new Set(spelled(spelling)) : DUMMY_SIGNATURES;
}

/**
 * Gemini's refusal of a signature it cannot validate, as users pasted it: Vertex "Unable to submit
 * request because Thought signature is not valid.. Learn more: …" (bobrware/bobrchat#120,
 * decolua/9router#301); the Developer API "Invalid thought signature." (lbjlaq/Antigravity-Manager#3342).
 */
function invalidSignatureBody(backend: Backend): unknown {
  return backend === "vertex"
    ? plainError(
        backend,
        "Unable to submit request because Thought signature is not valid.. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini",
      )
    : plainError(backend, "Invalid thought signature.");
}

export interface Refusal {
  rule: string;
  status: number;
  /** The body as Gemini sends it (Vertex wraps some in an array). */
  body: unknown;
}

interface Part {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { name?: string };
  functionResponse?: { name?: string };
}
interface Content {
  role?: string;
  parts?: Part[];
}
interface RequestBody {
  contents?: Content[];
  labels?: Record<string, unknown>;
  continuationToken?: string;
  generationConfig?: {
    maxOutputTokens?: number;
    thinkingConfig?: { thinkingLevel?: string; thinkingBudget?: number };
  };
}

const ISSUES = join(import.meta.dirname, "../fixtures/real/gemini/issues");
const recorded = (file: string): unknown => JSON.parse(readFileSync(join(ISSUES, file), "utf8")) as unknown;

/** A recorded body with its message (and any errors[].message) rewritten by `edit`. */
function fromRecording(file: string, edit: (message: string) => string): unknown {
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (typeof value !== "object" || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, v]) => [
        key,
        key === "message" && typeof v === "string" ? edit(v) : rewrite(v),
      ]),
    );
  };
  return rewrite(recorded(file));
}

/** The plain google.rpc error body, for refusals whose wording nobody recorded. */
function plainError(backend: Backend, message: string): unknown {
  const error = { code: 400, message, status: "INVALID_ARGUMENT" };
  return backend === "vertex"
    ? [{ error: { ...error, errors: [{ message, domain: "global", reason: "badRequest" }] } }]
    : { error };
}

export interface RuleDoc {
  id: string;
  applies: string;
  source: string;
  wording: string;
}

/** Every rule the fake enforces, for its test and for the report that lists them. */
export const RULES: readonly RuleDoc[] = [
  {
    id: "thought-signature-current-turn",
    applies: "Gemini 3 and later text models (not the -image models), both backends",
    source:
      'https://ai.google.dev/gemini-api/docs/thought-signatures ("Validation": the current turn starts at the most recent user content with standard content; the first functionCall part of every step in it must carry its signature, or 400); https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures (400 on Gemini 3; Gemini 3 Pro Image does not validate)',
    wording:
      "recorded: issues/gemini-api-400-missing-thought-signature.json (Developer API), issues/vertex-400-missing-thought-signature.json (Vertex); position / content block counted from 1, as the reports with a plain [user, model, user] history show",
  },
  {
    id: "thought-signature-known",
    applies: "Gemini 3 and later text models",
    source:
      'https://ai.google.dev/gemini-api/docs/thought-signatures ("pass it back exactly as received"; the documented dummy values for calls the model did not make)',
    wording:
      'not recorded in full; the message "Corrupted thought signature." is quoted in https://docs.apiyi.com/faq/gemini-thought-signature-missing',
  },
  {
    id: "thought-signature-dummy-spelling",
    applies:
      "Gemini 3 and later text models, on a backend the fake is told accepts one spelling of the dummy",
    source:
      "https://ai.google.dev/gemini-api/docs/thought-signatures#faqs and https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures (the dummy value, text); live 400s with one spelling on one backend: RooCodeInc/Roo-Code#10759, bobrware/bobrchat#120, decolua/9router#301",
    wording:
      'quoted in those issues: Vertex "Unable to submit request because Thought signature is not valid.. Learn more: …"; Developer API "Invalid thought signature." (lbjlaq/Antigravity-Manager#3342)',
  },
  {
    id: "schema-keywords-ignored",
    applies:
      "responseJsonSchema and parametersJsonSchema on every model: keywords outside the documented list are not refused but not enforced either, so the fake records them (GeminiRequest.ignoredKeywords) and answers as if they were absent",
    source:
      'https://ai.google.dev/gemini-api/docs/structured-output ("JSON Schema support": the supported keywords per type; others are ignored)',
    wording: "no refusal: the request is answered",
  },
  {
    id: "function-response-count",
    applies: "every Gemini model",
    source:
      "observed 400 on gemini-2.5-pro and gemini-3 (google-gemini/gemini-cli#7410, #16216): a function-call turn must be answered by one user content with as many functionResponse parts",
    wording:
      "recorded: issues/vertex-400-function-response-count.json (Vertex); the Developer API sends the same message unwrapped",
  },
  {
    id: "thinking-level-on-2.x",
    applies: "Gemini 2.x",
    source:
      'https://ai.google.dev/gemini-api/docs/thinking ("Gemini 2.5 series models don\'t support thinkingLevel; use thinkingBudget instead"); live matrix in dhyansraj/mcp-mesh#1346',
    wording:
      "recorded: issues/gemini-api-400-thinking-level-unsupported.json (RooCodeInc/Roo-Code#10700, gemini-2.5-flash)",
  },
  {
    id: "thinking-level-per-model",
    applies:
      "Gemini 3 Pro takes LOW and HIGH; 3.1 Pro and 3.7/3.8 Flash also MEDIUM, never MINIMAL; earlier Flash and Flash-Lite take all four; an alias or a routed id by the model that answers it",
    source:
      "https://ai.google.dev/gemini-api/docs/gemini-3 (thinking levels per model); the Gemini 3.8 Flash developer guide (supported thinking levels LOW, MEDIUM, HIGH for 3.8 and 3.7 Flash); 400s for MEDIUM on gemini-3-pro-preview (egoist/chatwise-releases#1206, jenslys/opencode-gemini-auth#14) and MINIMAL on gemini-3.1-pro-preview (dhyansraj/mcp-mesh#1346)",
    wording:
      "recorded: issues/gemini-api-400-thinking-level-medium.json (Developer API), issues/vertex-400-thinking-level-medium.json (Vertex)",
  },
  {
    id: "thinking-level-and-budget",
    applies: "every model",
    source:
      'https://ai.google.dev/gemini-api/docs/gemini-3 ("You cannot use both thinking_level and the legacy thinking_budget parameter in the same request. Doing so will return a 400 error")',
    wording: "not recorded: status 400 INVALID_ARGUMENT with ferret's own message",
  },
  {
    id: "thinking-budget-range",
    applies:
      "Gemini 2.5: Pro 128–32768 (cannot turn thinking off), Flash 0–24576, Flash-Lite 0 or 512–24576; -1 is dynamic",
    source: "https://ai.google.dev/gemini-api/docs/thinking (thinking budget table per model)",
    wording:
      '"The thinking budget N is invalid. Please choose a value between A and B." as quoted for 2.5 Pro in public code that handles it',
  },
  {
    id: "max-output-tokens-range",
    applies: "Gemini 2.5 and 3.x (output limit 65,536)",
    source:
      "model pages, e.g. https://docs.cloud.google.com/vertex-ai/generative-ai/docs/models/gemini/3-flash (maximum output tokens 65,536)",
    wording: "not recorded: status 400 INVALID_ARGUMENT with ferret's own message",
  },
  {
    id: "labels-format",
    applies: "Vertex AI (the SDK refuses labels on the Developer API before sending)",
    source:
      'https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/add-labels-to-api-calls ("Requirements for labels": at most 64; keys 1–63 characters starting with a lowercase or international letter; values up to 63; only lowercase letters, digits, underscores and dashes)',
    wording: "not recorded: status 400 INVALID_ARGUMENT with ferret's own message",
  },
  {
    id: "continuation-token-issued",
    applies: "every model",
    source:
      "@google/genai 3.1.0 dist/node/index.mjs generateContentWithContinuation: a continuation request repeats the request with the continuationToken the previous response carried",
    wording: "not recorded: status 400 INVALID_ARGUMENT with ferret's own message",
  },
];

const LEVELS: Record<string, readonly string[]> = {
  "3-pro": ["LOW", "HIGH"],
  pro: ["LOW", "MEDIUM", "HIGH"],
  flash: ["MINIMAL", "LOW", "MEDIUM", "HIGH"],
};

function levelsFor(family: Family): readonly string[] {
  if (family.tier === "pro") return family.version === "3" ? LEVELS["3-pro"]! : LEVELS.pro!;
  // The 3.8 Flash developer guide lists LOW, MEDIUM, HIGH for 3.7 and 3.8 Flash (no MINIMAL).
  if (family.tier === "flash" && Number(family.version) >= 3.7) return LEVELS.pro!;
  return LEVELS.flash!;
}

/** [min, max] of thinkingBudget per Gemini 2.5 tier (0 allowed separately for Flash-Lite). */
function budgetRange(family: Family): { min: number; max: number; zero: boolean } {
  if (family.tier === "pro") return { min: 128, max: 32_768, zero: false };
  if (family.tier === "flash-lite") return { min: 512, max: 24_576, zero: true };
  return { min: 0, max: 24_576, zero: true };
}

export const MAX_OUTPUT_TOKENS = 65_536;

/**
 * The first rule a generateContent request breaks, answered as Gemini answers it; undefined when
 * Gemini would take the request. `issued` holds the signatures and continuation tokens this
 * server has handed out (real ones are opaque to the client, so a made-up one is refused).
 */
export function check(
  route: { model: string; backend: Backend },
  body: unknown,
  issued: { signatures: ReadonlySet<string>; continuationTokens: ReadonlySet<string> },
  dummySpelling?: DummySpelling,
): Refusal | undefined {
  const request = (body ?? {}) as RequestBody;
  const family = familyOf(route.model);
  const contents = Array.isArray(request.contents) ? request.contents : [];
  const thinking = request.generationConfig?.thinkingConfig;
  const level = thinking?.thinkingLevel?.toUpperCase();
  const budget = thinking?.thinkingBudget;

  if (level !== undefined && budget !== undefined) {
    return {
      rule: "thinking-level-and-budget",
      status: 400,
      body: plainError(route.backend, "thinking_level and thinking_budget cannot be set together."),
    };
  }
  if (level !== undefined && family.generation !== undefined && family.generation < 3) {
    return {
      rule: "thinking-level-on-2.x",
      status: 400,
      body:
        route.backend === "developer"
          ? recorded("gemini-api-400-thinking-level-unsupported.json")
          : plainError(route.backend, "Thinking level is not supported for this model."),
    };
  }
  if (
    level !== undefined &&
    family.generation !== undefined &&
    family.generation >= 3 &&
    !levelsFor(family).includes(level)
  ) {
    return {
      rule: "thinking-level-per-model",
      status: 400,
      body:
        route.backend === "developer"
          ? fromRecording("gemini-api-400-thinking-level-medium.json", (m) => m.replace("MEDIUM", level))
          : fromRecording("vertex-400-thinking-level-medium.json", (m) => m.replace("MEDIUM", level)),
    };
  }
  if (budget !== undefined && budget !== -1 && family.generation === 2 && family.version === "2.5") {
    const range = budgetRange(family);
    if (!(budget === 0 && range.zero) && (budget < range.min || budget > range.max)) {
      return {
        rule: "thinking-budget-range",
        status: 400,
        body: plainError(
          route.backend,
          `The thinking budget ${budget} is invalid. Please choose a value between ${range.min} and ${range.max}.`,
        ),
      };
    }
  }
  const cap = request.generationConfig?.maxOutputTokens;
  if (cap !== undefined && (cap < 1 || cap > MAX_OUTPUT_TOKENS)) {
    return {
      rule: "max-output-tokens-range",
      status: 400,
      body: plainError(
        route.backend,
        `maxOutputTokens ${cap} is outside the supported range 1 to ${MAX_OUTPUT_TOKENS}.`,
      ),
    };
  }
  const badLabel = route.backend === "vertex" ? labelProblem(request.labels) : undefined;
  if (badLabel) return { rule: "labels-format", status: 400, body: plainError(route.backend, badLabel) };
  if (request.continuationToken !== undefined && !issued.continuationTokens.has(request.continuationToken)) {
    return {
      rule: "continuation-token-issued",
      status: 400,
      body: plainError(route.backend, "Invalid continuation token."),
    };
  }
  const counted = functionResponseCount(contents);
  if (counted) return { rule: "function-response-count", status: 400, body: countBody(route.backend) };

  if (family.generation !== undefined && family.generation >= 3 && !family.image) {
    const missing = unsignedCallInCurrentTurn(contents);
    if (missing) {
      return {
        rule: "thought-signature-current-turn",
        status: 400,
        body:
          route.backend === "developer"
            ? fromRecording("gemini-api-400-missing-thought-signature.json", (m) =>
                m.replace(
                  /`default_api:[^`]*` , position \d+/,
                  `\`default_api:${missing.name}\` , position ${missing.position}`,
                ),
              )
            : fromRecording("vertex-400-missing-thought-signature.json", (m) =>
                m.replace(
                  /`[^`]*` in the \d+\. content block/,
                  `\`default_api:${missing.name}\` in the ${missing.position}. content block`,
                ),
              ),
      };
    }
    const accepted = acceptedDummies(dummySpelling);
    if (dummyIn(contents, (signature) => DUMMY_SIGNATURES.has(signature) && !accepted.has(signature))) {
      return {
        rule: "thought-signature-dummy-spelling",
        status: 400,
        body: invalidSignatureBody(route.backend),
      };
    }
    const unknown = unknownSignature(contents, issued.signatures);
    if (unknown) {
      return {
        rule: "thought-signature-known",
        status: 400,
        body: plainError(route.backend, "Corrupted thought signature."),
      };
    }
  }
  return undefined;
}

const MAX_LABELS = 64;
const LABEL_KEY = /^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{Nd}_-]{0,62}$/u;
const LABEL_VALUE = /^[\p{Ll}\p{Lo}\p{Nd}_-]{0,63}$/u;

/** What breaks Vertex's documented label requirements, or undefined. */
function labelProblem(labels: Record<string, unknown> | undefined): string | undefined {
  if (labels === undefined) return undefined;
  const entries = Object.entries(labels);
  if (entries.length > MAX_LABELS) return `At most ${MAX_LABELS} labels are allowed; got ${entries.length}.`;
  for (const [key, value] of entries) {
    if (!LABEL_KEY.test(key)) return `Label key "${key}" is invalid.`;
    if (typeof value !== "string" || !LABEL_VALUE.test(value))
      return `Label value "${String(value)}" of key "${key}" is invalid.`;
  }
  return undefined;
}

function countBody(backend: Backend): unknown {
  const vertex = recorded("vertex-400-function-response-count.json");
  if (backend === "vertex") return vertex;
  const inner = (vertex as Array<{ error: { code: number; message: string; status: string } }>)[0]!.error;
  return { error: { code: inner.code, message: inner.message, status: inner.status } };
}

const isCall = (part: Part) => part.functionCall !== undefined;
const isResponse = (part: Part) => part.functionResponse !== undefined;

/** A model content with N calls must be followed by a user content with N function responses. */
function functionResponseCount(contents: readonly Content[]): boolean {
  for (let i = 0; i < contents.length; i++) {
    const content = contents[i]!;
    if (content.role !== "model") continue;
    const calls = (content.parts ?? []).filter(isCall).length;
    if (calls === 0) continue;
    const next = contents[i + 1];
    // The request may end on the model's calls (the client asks again before answering them).
    if (next === undefined) continue;
    const responses = (next.parts ?? []).filter(isResponse).length;
    if (next.role !== "user" || responses !== calls) return true;
  }
  return false;
}

/**
 * Where the current turn begins: the last user content that carries standard content (text),
 * not only function responses.
 */
function currentTurnStart(contents: readonly Content[]): number {
  for (let i = contents.length - 1; i >= 0; i--) {
    const content = contents[i]!;
    if (
      content.role === "user" &&
      (content.parts ?? []).some((p) => !isResponse(p) && typeof p.text === "string")
    ) {
      return i;
    }
  }
  return 0;
}

/** Within the current turn, the first functionCall part of each model content (each step) must carry a signature. */
function unsignedCallInCurrentTurn(
  contents: readonly Content[],
): { name: string; position: number } | undefined {
  for (let i = currentTurnStart(contents); i < contents.length; i++) {
    const content = contents[i]!;
    if (content.role !== "model") continue;
    const first = (content.parts ?? []).find(isCall);
    if (first && !first.thoughtSignature) return { name: first.functionCall?.name ?? "", position: i + 1 };
  }
  return undefined;
}

/** A signature in the current turn that this server never issued and that is not a documented dummy. */
function unknownSignature(contents: readonly Content[], issued: ReadonlySet<string>): string | undefined {
  for (const content of contents.slice(currentTurnStart(contents))) {
    if (content.role !== "model") continue;
    for (const part of content.parts ?? []) {
      const signature = part.thoughtSignature;
      if (signature && !issued.has(signature) && !DUMMY_SIGNATURES.has(signature)) return signature;
    }
  }
  return undefined;
}

/** Whether a signature in the current turn matches `test`. */
function dummyIn(contents: readonly Content[], test: (signature: string) => boolean): boolean {
  return contents
    .slice(currentTurnStart(contents))
    .some(
      (content) =>
        content.role === "model" &&
        (content.parts ?? []).some((p) => p.thoughtSignature !== undefined && test(p.thoughtSignature)),
    );
}

/**
 * The keywords https://ai.google.dev/gemini-api/docs/structured-output lists as supported ("JSON
 * Schema support"), plus propertyOrdering from the Schema reference. Kept apart from ferret's own
 * list (model/gemini-schema.ts) so the fake checks it rather than agreeing with it by construction.
 */
const SUPPORTED_SCHEMA_KEYWORDS = new Set([
  "type",
  "title",
  "description",
  "properties",
  "required",
  "additionalProperties",
  "enum",
  "format",
  "minimum",
  "maximum",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "anyOf",
  "$ref",
  "$defs",
  "propertyOrdering",
]);

/**
 * Every keyword of a request's response and parameter schemas that Gemini ignores, as
 * "<where>:<json pointer>/<keyword>" (e.g. "response:/properties/summary/maxLength").
 */
export function ignoredSchemaKeywords(body: unknown): string[] {
  const request = (body ?? {}) as {
    generationConfig?: { responseJsonSchema?: unknown };
    tools?: Array<{ functionDeclarations?: Array<{ name?: string; parametersJsonSchema?: unknown }> }>;
  };
  const found: string[] = [];
  const walk = (node: unknown, where: string, path: string): void => {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (!SUPPORTED_SCHEMA_KEYWORDS.has(key)) {
        found.push(`${where}:${path}/${key}`);
        continue;
      }
      if ((key === "properties" || key === "$defs") && typeof value === "object" && value !== null) {
        for (const [name, child] of Object.entries(value)) walk(child, where, `${path}/${key}/${name}`);
      } else if ((key === "anyOf" || key === "prefixItems") && Array.isArray(value)) {
        for (const [i, child] of value.entries()) walk(child, where, `${path}/${key}/${i}`);
      } else if (key === "items" || key === "additionalProperties") {
        walk(value, where, `${path}/${key}`);
      }
    }
  };
  walk(request.generationConfig?.responseJsonSchema, "response", "");
  for (const tool of request.tools ?? [])
    for (const declaration of tool.functionDeclarations ?? [])
      walk(declaration.parametersJsonSchema, `function ${declaration.name ?? "?"}`, "");
  return found;
}

import { ConfigError, FerretError, InvalidInputError, NotFoundError } from "../../domain/errors.js";
import { FINDING_NAME_FORM, type FindingName, readFindingName } from "../../domain/finding/finding-name.js";
import type { JsonObject } from "../../domain/json.js";
import { listFindingsResultType, messageToApiJson } from "./proto-json.js";
import type { SccClientOptions } from "./scc-findings.js";

/**
 * Reads one finding by its full name with the official Security Command Center client, for
 * `ferret investigate --finding` on a laptop. The API has no GetFinding: ListFindings on the
 * finding's source, filtered on `name = "<the name>"` (the filter the ListFindingsRequest
 * reference documents: `name` takes `=`, values are string literals in quotes). A name with
 * `/locations/` is a v2 finding and goes to the v2 API, any other to v1, as the writes do
 * (scc-findings.ts).
 *
 * No other finding can answer (docs/decisions/0044-names-by-skeleton-and-grammar.md): the name
 * must follow the documented grammar (domain/finding/finding-name.ts), whose character sets leave no
 * quote or backslash to close the literal, and the finding the API returns must carry exactly
 * the name asked for, alone; anything else is a FindingMismatchError, never used.
 */

/** Parses a finding name by the documented grammar; anything else is the user's to fix. */
export function parseFindingName(name: string): FindingName {
  const read = readFindingName(name);
  if (!read.ok) {
    throw new InvalidInputError(
      `--finding ${JSON.stringify(name.slice(0, 200))} is not an SCC finding name: ${read.problem}. Expected ${FINDING_NAME_FORM} (the finding's "name" in the console's JSON tab, or \`gcloud scc findings list\`)`,
    );
  }
  return read.value;
}

/**
 * A string literal for an SCC filter. The documented syntax has literals "in quotes" and names
 * no escape, so a value holding a quote or a backslash cannot be said at all and is refused.
 */
export function filterLiteral(value: string): string {
  if (/["\\]/.test(value))
    throw new InvalidInputError(`${JSON.stringify(value)} cannot be quoted in an SCC filter`);
  return `"${value}"`;
}

/** SCC answered with a finding other than the one named: nothing of it is used. */
export class FindingMismatchError extends FerretError {
  constructor(message: string) {
    super("storage", message, { retryable: false });
  }
}

// gRPC status codes (https://grpc.github.io/grpc/core/md_doc_statuscodes.html).
const PERMISSION_DENIED = 7;
const UNAUTHENTICATED = 16;
const NOT_FOUND = 5;
const INVALID_ARGUMENT = 3;
const RETRYABLE = new Set([14, 4, 8, 10, 13]);

export class SccReadError extends FerretError {
  constructor(message: string, retryable: boolean, cause: unknown) {
    super("storage", message, { retryable, cause });
  }
}

/** The finding and its resource, in the API's JSON: what ferret's notification parser reads. */
export async function readFinding(name: string, options: SccClientOptions = {}): Promise<JsonObject> {
  const parsed = parseFindingName(name);
  const library = await import("@google-cloud/security-center");
  const client =
    parsed.version === "v2"
      ? new library.v2.SecurityCenterClient(options)
      : new library.v1.SecurityCenterClient(options);
  try {
    // Two at most: a second answer to an exact-name filter means the answer is not the one named.
    const request = { parent: parsed.parent, filter: `name=${filterLiteral(parsed.name)}`, pageSize: 2 };
    const [results] = await client.listFindings(request, { autoPaginate: false });
    const result = results[0];
    if (!result?.finding) {
      throw new NotFoundError(
        `SCC has no finding named ${parsed.name} that you can see: check the name, and that your account holds roles/securitycenter.findingsViewer on ${parsed.scope}`,
      );
    }
    const answered = results.map((r) => r.finding?.name ?? "");
    if (answered.length !== 1 || answered[0] !== parsed.name) {
      throw new FindingMismatchError(
        `SCC answered the request for ${parsed.name} with ${answered.map((n) => JSON.stringify(n.slice(0, 300))).join(", ")}: not the finding named, so nothing of it is used`,
      );
    }
    return messageToApiJson(
      listFindingsResultType(parsed.version),
      result as unknown as Record<string, unknown>,
    );
  } catch (error) {
    if (error instanceof FerretError) throw error;
    throw describeFailure(error, parsed);
  } finally {
    await client.close();
  }
}

function describeFailure(error: unknown, finding: FindingName): FerretError {
  const code = error && typeof error === "object" ? Reflect.get(error, "code") : undefined;
  const details = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
  if (code === PERMISSION_DENIED || code === UNAUTHENTICATED) {
    return new ConfigError(
      `SCC refused to list findings of ${finding.parent} (${details}): grant your account roles/securitycenter.findingsViewer on ${finding.scope} (gcloud ${finding.scope.split("/")[0]} add-iam-policy-binding ${finding.scope.split("/")[1]} --member=user:YOU --role=roles/securitycenter.findingsViewer), or check \`gcloud auth application-default login\``,
    );
  }
  if (code === NOT_FOUND || code === INVALID_ARGUMENT) {
    return new InvalidInputError(`SCC cannot read ${finding.name}: ${details}`);
  }
  const retryable = typeof code === "number" && RETRYABLE.has(code);
  return new SccReadError(`reading ${finding.name} from SCC failed: ${details}`, retryable, error);
}

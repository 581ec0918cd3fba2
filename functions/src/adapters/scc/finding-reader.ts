import { ConfigError, FerretError, InvalidInputError, NotFoundError } from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import { listFindingsResultType, messageToApiJson, type SccVersion } from "./proto-json.js";
import type { SccClientOptions } from "./scc-findings.js";

/**
 * Reads one finding by its full name with the official Security Command Center client, for
 * `ferret investigate --finding` on a laptop. The API has no GetFinding: ListFindings on the
 * finding's source, filtered on `name = "<the name>"` (the filter the ListFindingsRequest
 * reference documents for `name`), returns it with its resource. A name with `/locations/`
 * is a v2 finding and goes to the v2 API, any other to v1, as the writes do
 * (scc-findings.ts).
 */

const NAME =
  /^((organizations|folders|projects)\/([^/]+)\/sources\/[^/]+(?:\/locations\/([^/]+))?)\/findings\/([^/]+)$/;

export interface FindingName {
  name: string;
  /** The source (with its location for v2): ListFindings' parent. */
  parent: string;
  version: SccVersion;
  /** organizations/123, folders/4 or projects/p: where a viewer role is granted. */
  scope: string;
}

/** Parses a finding name as SCC writes it; anything else is the user's to fix. */
export function parseFindingName(name: string): FindingName {
  const match = NAME.exec(name.trim());
  if (!match) {
    throw new InvalidInputError(
      `--finding ${JSON.stringify(name.slice(0, 200))} is not an SCC finding name: expected organizations|folders|projects/<id>/sources/<id>[/locations/<location>]/findings/<id> (the finding's "name" in the console's JSON tab, or \`gcloud scc findings list\`)`,
    );
  }
  return {
    name: match[0],
    parent: match[1] as string,
    version: match[4] ? "v2" : "v1",
    scope: `${match[2]}/${match[3]}`,
  };
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
    const request = { parent: parsed.parent, filter: `name="${parsed.name}"`, pageSize: 1 };
    // One page: the filter matches at most one finding.
    const [results] = await client.listFindings(request, { autoPaginate: false });
    const result = results[0];
    if (!result?.finding) {
      throw new NotFoundError(
        `SCC has no finding named ${parsed.name} that you can see: check the name, and that your account holds roles/securitycenter.findingsViewer on ${parsed.scope}`,
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

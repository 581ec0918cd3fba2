/**
 * The documented grammar of a Security Command Center finding's name, segment by segment
 * (docs/decisions/0044-names-by-skeleton-and-grammar.md):
 *
 *   v1  {organizations|folders|projects}/{parent id}/sources/{source id}/findings/{finding id}
 *   v2  {organizations|folders|projects}/{parent id}/sources/{source id}/locations/{location}/findings/{finding id}
 *
 * Finding.name and ListFindingsRequest.parent in the v1 and v2 API references give the shape;
 * CreateFindingRequest.finding_id gives the finding id: "alphanumeric and less than or equal
 * to 32 characters and greater than 0 characters in length". Organization, folder and source
 * ids are the numbers the services assign (`gcloud scc findings create … --organization=123456
 * --source=5678`); a project is its number or its id (6 to 30 lowercase letters, digits and
 * hyphens, starting with a letter, not ending with a hyphen, as own-project.ts reads them for
 * --bigquery); a location is a lowercase id such as `global`, `eu` or `europe-west1`. The
 * source `-` (ListFindings' "every source") is not a source. Nothing outside these sets, so
 * no quote, backslash, space or slash, can reach a filter or a link built from a name.
 */

export type FindingApiVersion = "v1" | "v2";

export interface FindingName {
  /** The name as given, which matched the grammar whole. */
  name: string;
  /** The source (with its location for v2): ListFindings' parent. */
  parent: string;
  version: FindingApiVersion;
  /** organizations/123, folders/4 or projects/p: where a viewer role is granted. */
  scope: string;
}

const PARENT_ID: Record<string, { pattern: RegExp; says: string }> = {
  organizations: { pattern: /^[0-9]{1,32}$/, says: "an organization number (digits)" },
  folders: { pattern: /^[0-9]{1,32}$/, says: "a folder number (digits)" },
  projects: {
    pattern: /^(?:[0-9]{1,32}|[a-z][a-z0-9-]{4,28}[a-z0-9])$/,
    says: "a project number (digits) or a project id (6-30 lowercase letters, digits and hyphens, starting with a letter)",
  },
};
const SOURCE_ID = /^[0-9]{1,32}$/;
const LOCATION = /^[a-z][a-z0-9-]{0,62}$/;
const FINDING_ID = /^[A-Za-z0-9]{1,32}$/;

export const FINDING_NAME_FORM =
  "organizations|folders|projects/<id>/sources/<number>[/locations/<location>]/findings/<1-32 letters or digits>";

/** What is wrong with the name, in the user's terms, or undefined when it follows the grammar. */
function problemWith(segments: readonly string[]): string | undefined {
  const [scope, scopeId, sources, sourceId, ...rest] = segments;
  if (scope === undefined || !(scope in PARENT_ID))
    return "it must start with organizations/, folders/ or projects/";
  const parentId = PARENT_ID[scope];
  if (parentId && !parentId.pattern.test(scopeId ?? "")) return `after ${scope}/ comes ${parentId.says}`;
  if (sources !== "sources") return `after ${scope}/${scopeId}/ comes sources/`;
  if (!SOURCE_ID.test(sourceId ?? "")) return "the source id is a number (digits)";
  const tail = rest[0] === "locations" ? rest.slice(2) : rest;
  if (rest[0] === "locations" && !LOCATION.test(rest[1] ?? ""))
    return "a location is lowercase letters, digits and hyphens, starting with a letter (e.g. global)";
  if (tail.length !== 2 || tail[0] !== "findings") return "it must end with /findings/<finding id>";
  if (!FINDING_ID.test(tail[1] ?? "")) return "a finding id is 1 to 32 letters or digits";
  return undefined;
}

/** The name read by the grammar, or why it is not a finding name. */
export function readFindingName(
  name: string,
): { ok: true; value: FindingName } | { ok: false; problem: string } {
  if (name.length > 400) return { ok: false, problem: "it is longer than any finding name" };
  const segments = name.split("/");
  const problem = problemWith(segments);
  if (problem) return { ok: false, problem };
  const versioned = segments[4] === "locations";
  return {
    ok: true,
    value: {
      name,
      parent: segments.slice(0, versioned ? 6 : 4).join("/"),
      version: versioned ? "v2" : "v1",
      scope: segments.slice(0, 2).join("/"),
    },
  };
}

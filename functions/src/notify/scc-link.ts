/**
 * Deep link to a finding in the Security Command Center console. The console takes the
 * finding's relative resource name as `resourceId` next to the scope it lives in
 * (`organizationId`, `folder` or `project`); this is the form SCC integrations link back with.
 * The URL is built only from a name that matches the documented finding-name grammar, so a
 * hostile or malformed name yields no link at all instead of an attacker-chosen one.
 */
const FINDING_NAME =
  /^(organizations|folders|projects)\/([^/]+)\/sources\/[^/]+(\/locations\/[^/]+)?\/findings\/[A-Za-z0-9_-]+$/;
// The segments the grammar leaves open ([^/]+) must still be plain ids, never markup.
const SEGMENT = /^[A-Za-z0-9_.-]+$/;

const SCOPE_PARAM: Record<string, string> = {
  organizations: "organizationId",
  folders: "folder",
  projects: "project",
};

export const SCC_CONSOLE_FINDINGS = "https://console.cloud.google.com/security/command-center/findings";

export function isValidFindingName(name: string): boolean {
  return FINDING_NAME.test(name) && name.split("/").every((segment) => SEGMENT.test(segment));
}

export function sccFindingUrl(findingName: string): URL | undefined {
  const m = FINDING_NAME.exec(findingName);
  if (!m || !isValidFindingName(findingName)) return undefined;
  const [, scope = "", scopeId = ""] = m;
  const param = SCOPE_PARAM[scope];
  if (!param) return undefined;
  const url = new URL(SCC_CONSOLE_FINDINGS);
  url.searchParams.set(param, scopeId);
  url.searchParams.set("resourceId", findingName);
  return url;
}

import type { Finding } from "../../domain/finding/finding.js";
import type { JsonValue } from "../../domain/json.js";
import { INSTANCE, KEY_NAME, MEMBER, PROJECT_ID, ROLE, ZONE } from "../../domain/response-actions.js";

/**
 * What a finding names as a target for a response action. Only structured fields the detector
 * fills (the resource's name, access.serviceAccountKeyName, iamBindings, Event Threat
 * Detection's bindingDeltas) count, parsed whole; free text (descriptions, next steps, log
 * lines) never names a target, so text an attacker wrote cannot point an action elsewhere.
 */

export interface InstanceTarget {
  project: string;
  zone: string;
  /** The instance id from resourceName (Compute accepts a name or an id). */
  instance: string;
  /** Names that mean the same instance: the id and the resource's display name. */
  aliases: string[];
}

export interface BindingTarget {
  /** `projects/<id or number>` as Resource Manager takes it. */
  project: string;
  role: string;
  member: string;
}

const KEY_RESOURCE = /^\/\/iam\.googleapis\.com\/(projects\/[^/]+\/serviceAccounts\/[^/]+\/keys\/[^/]+)$/;
const INSTANCE_RESOURCE =
  /^\/\/compute\.googleapis\.com\/projects\/([^/]+)\/zones\/([^/]+)\/instances\/([^/]+)$/;
const PROJECT_RESOURCE = /^\/\/cloudresourcemanager\.googleapis\.com\/(projects\/[^/]+)$/;

/** Service-account keys the finding names: the key that made the call, or the key that is the resource. */
export function namedKeys(finding: Finding): string[] {
  const names = [finding.access?.serviceAccountKeyName, finding.resource.name]
    .map((n) => (n ? KEY_RESOURCE.exec(n)?.[1] : undefined))
    .filter((n): n is string => n !== undefined && KEY_NAME.test(n));
  return [...new Set(names)];
}

export function namedInstance(finding: Finding): InstanceTarget | undefined {
  const m = INSTANCE_RESOURCE.exec(finding.resource.name);
  if (!m) return undefined;
  const [, project, zone, instance] = m as unknown as [string, string, string, string];
  if (!PROJECT_ID.test(project) || !ZONE.test(zone) || !INSTANCE.test(instance)) return undefined;
  const display = finding.resource.displayName;
  const aliases = [instance, ...(display && INSTANCE.test(display) ? [display] : [])];
  return { project, zone, instance, aliases: [...new Set(aliases)] };
}

function bindingDeltas(
  sourceProperties: Record<string, JsonValue>,
): { action?: string; role?: string; member?: string }[] {
  const properties = sourceProperties.properties;
  if (!properties || typeof properties !== "object" || Array.isArray(properties)) return [];
  const grant = properties.sensitiveRoleGrant;
  if (!grant || typeof grant !== "object" || Array.isArray(grant)) return [];
  const deltas = grant.bindingDeltas;
  if (!Array.isArray(deltas)) return [];
  return deltas.flatMap((d) => {
    if (!d || typeof d !== "object" || Array.isArray(d)) return [];
    const str = (v: JsonValue | undefined) => (typeof v === "string" ? v : undefined);
    const action = str(d.action);
    const role = str(d.role);
    const member = str(d.member);
    return [{ ...(action ? { action } : {}), ...(role ? { role } : {}), ...(member ? { member } : {}) }];
  });
}

/**
 * Grants the finding reports as added on a project it is about. A binding on another resource
 * (a bucket, a dataset) is not a project's binding, so it names nothing to revoke here.
 */
export function namedBindings(finding: Finding): BindingTarget[] {
  const project = PROJECT_RESOURCE.exec(finding.resource.name)?.[1];
  if (!project) return [];
  const seen = new Set<string>();
  const out: BindingTarget[] = [];
  for (const b of [...finding.iamBindings, ...bindingDeltas(finding.sourceProperties)]) {
    if ((b.action ?? "").toUpperCase() !== "ADD" || !b.role || !b.member) continue;
    if (!ROLE.test(b.role) || !MEMBER.test(b.member)) continue;
    const key = `${b.role}\n${b.member}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ project, role: b.role, member: b.member });
  }
  return out;
}

import type { Environment } from "./environment.js";
import type { Rng } from "./prng.js";

/**
 * The SCC v1 notification envelope as the Pub/Sub message data decodes to: the finding
 * plus the resource block SCC attaches. Sources are the built-in SCC services.
 */
export const SOURCES = {
  vmThreatDetection: "Virtual Machine Threat Detection",
  eventThreatDetection: "Event Threat Detection",
  securityHealthAnalytics: "Security Health Analytics",
  containerThreatDetection: "Container Threat Detection",
} as const;

export function sccNotification(
  rng: Rng,
  env: Environment,
  spec: {
    source: keyof typeof SOURCES;
    category: string;
    findingClass: "THREAT" | "MISCONFIGURATION" | "VULNERABILITY";
    severity: "CRITICAL" | "HIGH" | "MEDIUM" | "LOW";
    eventTime: string;
    resource: { name: string; type: string; displayName: string };
    /** For findings on organization-level resources (groups, perimeters): no project block. */
    organizationLevel?: boolean;
    description: string;
    externalUri?: string;
    finding: Record<string, unknown>;
  },
): Record<string, unknown> {
  const sourceId = {
    vmThreatDetection: "15478907234216350921",
    eventThreatDetection: "5471623940177824101",
    securityHealthAnalytics: "3211862207014432096",
    containerThreatDetection: "8261477192853840216",
  }[spec.source];
  const findingId = rng.hex(32);
  const createTime = new Date(Date.parse(spec.eventTime) + rng.int(20_000, 140_000)).toISOString();
  const org = `organizations/${env.orgId}`;
  return {
    notificationConfigName: `${org}/notificationConfigs/ferret-findings`,
    finding: {
      name: `${org}/sources/${sourceId}/findings/${findingId}`,
      parent: `${org}/sources/${sourceId}`,
      resourceName: spec.resource.name,
      state: "ACTIVE",
      category: spec.category,
      ...(spec.externalUri ? { externalUri: spec.externalUri } : {}),
      securityMarks: { name: `${org}/sources/${sourceId}/findings/${findingId}/securityMarks` },
      eventTime: spec.eventTime,
      createTime,
      severity: spec.severity,
      canonicalName: `projects/${env.project.number}/sources/${sourceId}/findings/${findingId}`,
      mute: "UNMUTED",
      findingClass: spec.findingClass,
      description: spec.description,
      ...spec.finding,
    },
    resource: spec.organizationLevel
      ? {
          name: spec.resource.name,
          parent: org,
          type: spec.resource.type,
          displayName: spec.resource.displayName,
          folders: [],
        }
      : {
          name: spec.resource.name,
          project: `//cloudresourcemanager.googleapis.com/projects/${env.project.number}`,
          projectDisplayName: env.project.id,
          parent: `//cloudresourcemanager.googleapis.com/projects/${env.project.number}`,
          parentDisplayName: env.project.id,
          type: spec.resource.type,
          displayName: spec.resource.displayName,
          folders: [],
        },
  };
}

import { type CatalogEntry, catalogEntryFor, categoryKey, detectorName } from "../category-catalog.js";
import type { JsonValue } from "../json.js";
import type { Finding } from "./finding.js";

/**
 * Which detector wrote a finding, and what the catalog makes of its category. `inspect`
 * prints it; the offline model's routing uses `isCustomSource` so that a custom source's
 * category gets the generic plan by an explicit rule rather than by guessing from its words.
 */

/** Source display names of Security Command Center's built-in services (Finding.parentDisplayName). */
const BUILT_IN_SOURCES = new Set(
  [
    "Event Threat Detection",
    "Container Threat Detection",
    "Virtual Machine Threat Detection",
    "VM Threat Detection",
    "Cloud Run Threat Detection",
    "Agent Engine Threat Detection",
    "Security Health Analytics",
    "Web Security Scanner",
    "Rapid Vulnerability Detection",
    "VM Manager",
    "Sensitive Actions Service",
    "Security Command Center",
    "Security Posture",
    "Sensitive Data Protection",
    "Data Security Posture Management",
    "Model Armor",
    "Cloud Armor",
    "Google Cloud Armor",
    "GKE Security Posture",
    "IAM Recommender",
    "Security Command Center Risk Engine",
    "Risk Engine",
    // Source display names the detection services page gives its other services.
    "Cloud Anomaly Detection",
    "Vulnerability Assessment",
    "Compliance Evaluation Service",
    "Mandiant Attack Surface Management",
    "Notebook Security Scanner",
    "Policy Controller",
  ].map((s) => s.toLowerCase()),
);

export interface FindingSource {
  /** The detector as a person would name it, or undefined when nothing says. */
  detector?: string;
  /** Where `detector` came from: "parentDisplayName", "catalog", a sourceProperties key. */
  detectorFrom?: string;
  catalog?: CatalogEntry;
  /** One line: the catalog match, or why there is none. */
  match: string;
  /**
   * The generic plan applies by rule: a custom source's (or an unknown source's) uncatalogued
   * category, or a Risk Engine toxic combination or chokepoint (whose category names an attack
   * path, not something a detector saw; Google's pages list no such categories).
   */
  custom: boolean;
}

function has(props: Record<string, JsonValue>, key: string): boolean {
  return Object.hasOwn(props, key) || Object.keys(props).some((k) => k.startsWith(`${key}_`));
}

/** Built-in services leave recognisable keys in sourceProperties. */
function detectorHint(props: Record<string, JsonValue>): { detector: string; from: string } | undefined {
  if (has(props, "ScannerName"))
    return { detector: "Security Health Analytics", from: "sourceProperties.ScannerName" };
  if (has(props, "detectionCategory"))
    return { detector: "Event Threat Detection", from: "sourceProperties.detectionCategory" };
  if (has(props, "scanRunId") || has(props, "finalUrl"))
    return { detector: "Web Security Scanner", from: "sourceProperties.scanRunId" };
  if (has(props, "vm_threat_detection_version") || has(props, "threats"))
    return { detector: "Virtual Machine Threat Detection", from: "sourceProperties.threats" };
  return undefined;
}

export function isBuiltInSource(displayName: string | undefined): boolean {
  return displayName !== undefined && BUILT_IN_SOURCES.has(displayName.trim().toLowerCase());
}

/** Risk Engine's finding classes: a path through several issues, not one detection. */
const PATH_CLASSES = new Set(["TOXIC_COMBINATION", "CHOKEPOINT"]);

type SourceFields = Pick<Finding, "category"> &
  Partial<Pick<Finding, "parentDisplayName" | "sourceProperties" | "findingClass">>;

export function findingSource(f: SourceFields): FindingSource {
  const entry = catalogEntryFor(f.category);
  const hint = detectorHint(f.sourceProperties ?? {});
  const named = f.parentDisplayName?.trim() || undefined;
  const detector = named ?? (entry ? detectorName(entry.detector) : hint?.detector);
  const detectorFrom = named ? "parentDisplayName" : entry ? "catalog" : hint?.from;
  if (entry) {
    const spelling =
      categoryKey(entry.category) === categoryKey(f.category)
        ? ""
        : ` (as "${f.category}", a known spelling)`;
    return {
      ...(detector ? { detector, detectorFrom } : {}),
      catalog: entry,
      match: `${entry.category}${spelling}: ${entry.origin === "ferret" ? "ferret's entry" : "generated from Google's list"}, playbook ${entry.playbook}`,
      custom: false,
    };
  }
  if (f.findingClass !== undefined && PATH_CLASSES.has(f.findingClass.toUpperCase())) {
    return {
      detector: named ?? "Security Command Center Risk Engine",
      detectorFrom: named ? "parentDisplayName" : "findingClass",
      match: `none: a ${f.findingClass.toLowerCase().replace(/_/g, " ")} (an attack path Risk Engine found, not one detection; Google's pages list no such categories); the generic plan applies`,
      custom: true,
    };
  }
  // Custom: a source that names itself and is not a built-in service, or source properties
  // none of the built-in services would write. With neither, nothing says (not custom).
  const props = Object.keys(f.sourceProperties ?? {}).length > 0;
  const custom = named ? !isBuiltInSource(named) : props && hint === undefined;
  return {
    ...(detector ? { detector, detectorFrom } : {}),
    match: custom
      ? "none: a custom source's category (Google's saved pages do not list it); the generic plan applies"
      : detector
        ? "none: a built-in detector's category that Google's saved pages do not list; planned from its words"
        : "none: the category is not in Google's saved lists and nothing names its source; planned from its words",
    custom,
  };
}

/**
 * The explicit rule for routing: a custom source's uncatalogued category, or a toxic combination
 * or chokepoint, gets the generic plan.
 */
export function isCustomSource(f: SourceFields): boolean {
  return findingSource(f).custom;
}

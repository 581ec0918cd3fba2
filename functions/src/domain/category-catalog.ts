import { z } from "zod";
import { CATALOG_ENTRIES } from "./catalog/entries.js";
import { GOOGLE_LISTED_CATEGORIES, type GoogleListedCategory } from "./catalog/google-lists.js";
import {
  type CatalogEntry,
  type CatalogEntryInput,
  CatalogEntrySchema,
  type Detector,
  DetectorSchema,
} from "./catalog/schema.js";

export type { CatalogEntry, Detector, PlaybookId } from "./catalog/schema.js";

/**
 * The category catalog: ferret's hand-written entries (catalog/entries.ts), plus one generated
 * entry for every other category Google's saved pages list (catalog/google-lists.ts, generated
 * from test/fixtures/real/google-docs/ by scripts/catalog/), plus every other spelling a
 * category is known by (the API name, an older or newer display name) as an alias. See
 * docs/decisions/0034-category-catalog-from-google-lists.md.
 */

/**
 * Category spellings differ between API versions, exports and hand-written findings
 * ("Malware: Bad Domain", "MALWARE_BAD_DOMAIN", a trailing "(Preview)"); the key ignores case,
 * punctuation and spacing. Nothing else is fuzzy: an unknown category has no entry.
 */
export function categoryKey(category: string): string {
  return category
    .toLowerCase()
    .replace(/\(?\bpreview\b\)?\s*$/, "")
    .replace(/[^a-z0-9]+/g, "");
}

/**
 * One detection, two names, where no saved page says so: [spelling, the catalogued one]. API
 * names and the renames Google's pages document come from the saved lists themselves (their
 * API-name column and "also:" names, e.g. the release notes' rename tables); these are spellings
 * seen in real findings and exports.
 */
const RENAMED: readonly (readonly [string, string])[] = [
  ["Persistence: GCE Admin Added SSH Key", "Persistence: Compute Engine Admin Added SSH Key"],
  ["Persistence: GCE Admin Added Startup Script", "Persistence: Compute Engine Admin Added Startup Script"],
  ["Brute force SSH", "Brute Force: SSH"],
  ["Brute_force: SSH Brute Force", "Brute Force: SSH"],
  ["Exfiltration: Cloud SQL SQL Over-Privileged Grant", "Exfiltration: Cloud SQL Over-Privileged Grant"],
  ["C2: Bad IP", "Malware: Bad IP"],
  ["C2: Bad Domain", "Malware: Bad Domain"],
  ["Breakglass Account Used: break_glass_account", "Defense Evasion: Breakglass Account Used"],
  ["Configurable Bad Domain: APT29_Domains", "Configurable Bad Domain"],
  ["Unexpected Role Grant: Forbidden roles", "Unexpected Role Grant"],
];

/** Threat playbooks by what the category's words say happened (tactic prefix ignored). */
const THREAT_PLAYBOOKS: readonly (readonly [RegExp, CatalogEntry["playbook"]])[] = [
  [/crypto\s*(?:currency\s*)?mining|stratum|cryptomining/i, "cryptomining"],
  [/\bbad\s+(?:domain|ip)\b|malicious\s+url|configurable\s+bad/i, "bad_indicator"],
  [/brute\s*force/i, "brute_force"],
  [/exfiltrat|data\s+extraction|file\s+copy/i, "exfiltration"],
  [
    /anomalous\s+grant|sensitive\s+role|role\s+grant|granted|token\s+creator\s+role|owner\s+or\s+editor|privileged\s+group|binding/i,
    "iam_grant",
  ],
  [
    /credential|token|leaked|password|private\s+key|gpg\s+key|anonymi[sz]ing|tor\s+proxy|new\s+geography|new\s+user\s+agent/i,
    "credential_access",
  ],
];

/** The explicit rule that gives a generated entry its playbook. */
export function generatedPlaybook(
  listed: Pick<GoogleListedCategory, "category" | "detector" | "findingClass">,
): CatalogEntry["playbook"] {
  // Cloud Armor's findings (a spike of allowed requests, a rising deny ratio on a backend) ask
  // what the backend exposes under its security policy and who changed that policy: the posture
  // plan's questions. ferret has no playbook for L7 traffic itself.
  if (listed.detector === "cloud_armor") return "posture";
  if (listed.findingClass !== "THREAT") {
    return /^PUBLIC_(?:BUCKET_ACL|STORAGE_OBJECT|LOG_BUCKET)$/.test(listed.category)
      ? "public_bucket"
      : "posture";
  }
  const subject = listed.category.replace(/^[^:]{2,40}:\s*/, "");
  const byWords = THREAT_PLAYBOOKS.find(([re]) => re.test(subject));
  if (byWords) return byWords[1];
  const runtime = [
    "container_threat_detection",
    "cloud_run_threat_detection",
    "agent_engine_threat_detection",
    "vm_threat_detection",
  ];
  return runtime.includes(listed.detector) ? "runtime" : "admin_change";
}

const DETECTOR_NAMES: Readonly<Record<Detector, string>> = {
  event_threat_detection: "Event Threat Detection",
  event_threat_detection_custom_module: "an Event Threat Detection custom module",
  container_threat_detection: "Container Threat Detection",
  vm_threat_detection: "Virtual Machine Threat Detection",
  cloud_run_threat_detection: "Cloud Run Threat Detection",
  agent_engine_threat_detection: "Agent Engine Threat Detection",
  security_health_analytics: "Security Health Analytics",
  security_health_analytics_custom_module: "a Security Health Analytics custom module",
  web_security_scanner: "Web Security Scanner",
  rapid_vulnerability_detection: "Rapid Vulnerability Detection",
  vm_manager: "VM Manager",
  gke_security_posture: "GKE security posture",
  iam_recommender: "IAM recommender",
  sensitive_actions: "Sensitive Actions Service",
  security_posture: "Security posture",
  scc_errors: "Security Command Center (an error, not a threat)",
  sensitive_data_protection: "Sensitive Data Protection",
  data_security_posture: "Data Security Posture Management",
  model_armor: "Model Armor",
  cloud_armor: "Google Cloud Armor",
  anomaly_detection: "Cloud Anomaly Detection",
  vulnerability_assessment: "Vulnerability Assessment",
};

export function detectorName(detector: Detector): string {
  return DETECTOR_NAMES[detector];
}

/** Generic first checks per playbook, in ferret's words, for entries generated from a list. */
const GENERIC_CHECKS: Readonly<Record<CatalogEntry["playbook"], string>> = {
  cryptomining: "Flows to mining pools and a miner process on the workload around the event time.",
  iam_grant:
    "Who granted which role to whom, from where, and whether the grantee belongs to the organisation.",
  bad_indicator:
    "Which workload contacted the indicator, how much traffic followed, and its threat-intel reputation.",
  brute_force: "Failed and successful logins around the event, and the source addresses.",
  credential_access:
    "Which identity and credential were used, from which IP and user agent, and what they did next.",
  public_bucket: "What the public resource holds and who can read it.",
  exfiltration:
    "What data moved where, by which principal, and whether the destination is outside the organisation.",
  admin_change:
    "Who made the change, from which IP and user agent, and whether that principal normally does this.",
  runtime:
    "The process, its parent, its binary or script hash and the workload's connections around the event.",
  posture: "Whether the resource is exposed or reachable, and who changed its configuration last.",
};

function generatedEntry(listed: GoogleListedCategory): CatalogEntryInput {
  const detector = DetectorSchema.parse(listed.detector);
  const playbook = generatedPlaybook(listed);
  const findingClass = listed.findingClass as CatalogEntryInput["findingClass"];
  return {
    category: listed.category,
    detector,
    findingClass,
    meaning: `${findingClass === "UNSPECIFIED" ? "A finding" : `A ${findingClass.toLowerCase().replace(/_/g, " ")} finding`} of ${DETECTOR_NAMES[detector]}, as Google's page lists it; ferret has no hand-written entry for it.`,
    mitre: [],
    investigate: [GENERIC_CHECKS[playbook]],
    playbook,
    source: listed.page,
    origin: "google-list",
    aliases: [...listed.apiNames],
  };
}

export interface Built {
  byKey: ReadonlyMap<string, CatalogEntry>;
  entries: readonly CatalogEntry[];
}

/** Keys of names that are one detection, merged: a tiny union-find over category keys. */
class SameDetection {
  private readonly parent = new Map<string, string>();
  root(key: string): string {
    let k = key;
    for (let p = this.parent.get(k); p !== undefined && p !== k; p = this.parent.get(k)) k = p;
    this.parent.set(key, k);
    return k;
  }
  join(keys: readonly string[]): void {
    const [first, ...rest] = keys.map((k) => this.root(k));
    if (first === undefined) return;
    for (const r of rest) if (r !== first) this.parent.set(r, first);
  }
}

function rowNames(item: GoogleListedCategory): string[] {
  return [item.category, ...item.apiNames, ...item.alsoKnownAs];
}

/** Builds the catalog from hand-written entries and listed rows; exported for its tests. */
export function buildCatalog(
  hand: readonly CatalogEntryInput[],
  listed: readonly GoogleListedCategory[],
): Built {
  const entries: CatalogEntry[] = z.array(CatalogEntrySchema).parse(hand);
  const byKey = new Map<string, CatalogEntry>();
  for (const entry of entries) {
    const key = categoryKey(entry.category);
    // Two entries for one key would make routing depend on their order.
    if (byKey.has(key)) throw new Error(`category catalog: duplicate entry for "${entry.category}"`);
    byKey.set(key, entry);
  }
  // A page lists the API name, another the display name, the release notes the name before a
  // rename: every name any row or rename joins is one detection, whatever the order of the pages.
  const same = new SameDetection();
  for (const [spelling, catalogued] of RENAMED) same.join([categoryKey(spelling), categoryKey(catalogued)]);
  for (const item of listed) same.join(rowNames(item).map(categoryKey));
  const byDetection = new Map<string, CatalogEntry>();
  for (const entry of entries) {
    const root = same.root(categoryKey(entry.category));
    const other = byDetection.get(root);
    if (other)
      throw new Error(`category catalog: "${entry.category}" and "${other.category}" are one detection`);
    byDetection.set(root, entry);
  }
  const alias = (spelling: string, entry: CatalogEntry) => {
    const key = categoryKey(spelling);
    if (byKey.has(key)) return;
    byKey.set(key, entry);
    if (spelling !== entry.category && !entry.aliases.includes(spelling)) entry.aliases.push(spelling);
  };
  for (const [spelling, catalogued] of RENAMED) {
    const entry = byDetection.get(same.root(categoryKey(catalogued)));
    if (entry) alias(spelling, entry);
  }
  for (const item of listed) {
    const root = same.root(categoryKey(item.category));
    let entry = byDetection.get(root);
    if (!entry) {
      entry = CatalogEntrySchema.parse(generatedEntry(item));
      entries.push(entry);
      byDetection.set(root, entry);
      byKey.set(categoryKey(entry.category), entry);
    } else if (
      entry.origin === "google-list" &&
      entry.findingClass === "UNSPECIFIED" &&
      item.findingClass !== "UNSPECIFIED"
    ) {
      // A page that names no class (the release notes) gives way to one that does.
      const { findingClass, meaning, investigate, playbook } = CatalogEntrySchema.parse(generatedEntry(item));
      Object.assign(entry, { findingClass, meaning, investigate, playbook });
    }
    for (const name of rowNames(item)) alias(name, entry);
  }
  return { byKey, entries };
}

const BUILT = buildCatalog(CATALOG_ENTRIES, GOOGLE_LISTED_CATEGORIES);

/** Every catalogued category, hand-written entries first, in catalog order. */
export const CATEGORY_CATALOG: readonly CatalogEntry[] = BUILT.entries;

/** The catalog entry for a finding's category (any known spelling), or undefined. */
export function catalogEntryFor(category: string): CatalogEntry | undefined {
  return BUILT.byKey.get(categoryKey(category));
}

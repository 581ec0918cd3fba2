/**
 * What each field of an SCC finding IS, read from Google's Finding reference, so indicators
 * are taken where a field says it holds one and nowhere else:
 *   v2 https://cloud.google.com/security-command-center/docs/reference/rest/v2/organizations.sources.locations.findings#Finding
 *   v1 https://cloud.google.com/security-command-center/docs/reference/rest/v1/organizations.sources.findings#Finding
 * and, for `sourceProperties` (free-form per source), from the detectors' documented property
 * layouts (Event Threat Detection, Container Threat Detection, VM Threat Detection, Web
 * Security Scanner, Security Health Analytics), with the URL of each layout beside it.
 *
 * Meanings:
 * - indicator: an artifact of the activity (Google: "an artifact observed on a network or in an
 *   operating system that, with high confidence, indicates a computer intrusion");
 * - actor: who acted (the caller, the delegating accounts, a reader of the data);
 * - target: who or what the activity gave something to (a granted member);
 * - resource: the organisation's own resource the finding is about (a VM, a bucket, the
 *   scanned application, an image);
 * - identifier: a name or id of the finding, a log entry, a source, a rule;
 * - reference: a link to documentation, a console page, a CVE or a library's changelog;
 * - context: everything else (prose, bookkeeping, settings, metadata).
 * Only indicator, actor and target yield indicators; every other value shown is context, kept
 * with its path and the reason below.
 */

export type FieldMeaning =
  | "indicator"
  | "actor"
  | "target"
  | "resource"
  | "identifier"
  | "reference"
  | "context";

/** The kind of indicator a field holds; `text` is free text an indicator may sit in (command lines). */
export type IndicatorKind = "ip" | "domain" | "url" | "hash" | "principal" | "text";

export interface FieldRow {
  meaning: FieldMeaning;
  kind?: IndicatorKind;
  /** What the reference says the field holds, in a few words. */
  says: string;
}

const row = (meaning: FieldMeaning, says: string, kind?: IndicatorKind): FieldRow =>
  kind ? { meaning, kind, says } : { meaning, says };

/**
 * The Finding's fields by path (JSON names, array levels left out). A row covers its subtree;
 * the longest matching path wins. A field the table does not name is context.
 */
export const FINDING_FIELDS: Readonly<Record<string, FieldRow>> = {
  name: row("identifier", "the finding's relative resource name"),
  canonicalName: row("identifier", "the finding's canonical name"),
  parent: row("identifier", "the source the finding belongs to"),
  parentDisplayName: row("context", "the source's display name"),
  resourceName: row("resource", "the full resource name the finding is for"),
  resource: row("resource", "the resource the finding is for"),
  externalUri: row("reference", "a web page with more information about the finding"),
  description: row("context", "the finding's description (prose)"),
  nextSteps: row("context", "steps to address the finding (prose)"),
  securityMarks: row("context", "user-defined marks (bookkeeping)"),
  externalSystems: row("context", "ticket systems the finding is synced to (bookkeeping)"),
  mute: row("context", "mute state (bookkeeping)"),
  muteInfo: row("context", "mute state (bookkeeping)"),
  muteInitiator: row("context", "who muted or unmuted the finding (bookkeeping)"),
  muteUpdateTime: row("context", "mute time (bookkeeping)"),
  contacts: row("context", "the organisation's contacts for the resource"),
  compliances: row("context", "compliance standards the finding maps to"),
  mitreAttack: row("context", "MITRE ATT&CK tactics and techniques"),
  moduleName: row("context", "the detector module's name"),
  "indicator.ipAddresses": row("indicator", "IP addresses associated with the finding", "ip"),
  "indicator.domains": row("indicator", "domains associated with the finding", "domain"),
  "indicator.uris": row("indicator", "URIs associated with the finding", "url"),
  "indicator.signatures": row("context", "signatures a process matched (named, not values)"),
  "access.callerIp": row("indicator", "the caller's IP address", "ip"),
  "access.principalEmail": row("actor", "the caller's account", "principal"),
  "access.principalSubject": row("actor", "the caller's identity", "principal"),
  "access.serviceAccountDelegationInfo": row(
    "actor",
    "the accounts the call was delegated through",
    "principal",
  ),
  "access.serviceAccountKeyName": row("actor", "the service-account key used (names its owner)"),
  "access.callerIpGeo": row("context", "the caller's location"),
  "access.userAgent": row("context", "the client's description of itself"),
  "access.userAgentFamily": row("context", "the client's family"),
  "access.serviceName": row("context", "the API service called"),
  "access.methodName": row("context", "the API method called"),
  "access.userName": row("context", "an account name on the resource"),
  "connections.destinationIp": row("indicator", "the address the connection went to", "ip"),
  "connections.sourceIp": row("indicator", "the address the connection came from", "ip"),
  connections: row("context", "ports and protocol of a connection"),
  "processes.binary.sha256": row("indicator", "the SHA-256 of the process's binary", "hash"),
  "processes.binary.hashes": row("indicator", "the hashes of the process's binary", "hash"),
  "processes.script.sha256": row("indicator", "the SHA-256 of the script the process ran", "hash"),
  "processes.script.hashes": row("indicator", "the hashes of the script the process ran", "hash"),
  "processes.libraries.sha256": row("indicator", "the SHA-256 of a library the process loaded", "hash"),
  "processes.libraries.hashes": row("indicator", "the hashes of a library the process loaded", "hash"),
  "processes.args": row("indicator", "the process's command line", "text"),
  processes: row("context", "process names, paths, ids and environment"),
  "files.sha256": row("indicator", "the SHA-256 of a file associated with the finding", "hash"),
  "files.hashes": row("indicator", "the hashes of a file associated with the finding", "hash"),
  files: row("context", "paths and sizes of files"),
  "iamBindings.member": row("target", "the member an IAM binding was added for or removed from", "principal"),
  iamBindings: row("context", "the role and action of an IAM binding"),
  "dataAccessEvents.principalEmail": row("actor", "who read the data", "principal"),
  dataAccessEvents: row("context", "when and how the data was read"),
  "dataFlowEvents.principalEmail": row("actor", "who moved the data", "principal"),
  dataFlowEvents: row("context", "when and how the data moved"),
  exfiltration: row("resource", "the sources and targets of exfiltrated data"),
  containers: row("resource", "the containers (images) the finding is about"),
  kubernetes: row("resource", "the cluster's pods, nodes and objects"),
  "kubernetes.bindings.subjects.name": row("target", "a subject a role binding grants", "principal"),
  "kubernetes.accessReviews": row("context", "permission checks that were made"),
  "kubernetes.roles": row("context", "roles involved"),
  database: row("resource", "the database the finding is about"),
  "database.query": row("context", "the query that was run"),
  "database.userName": row("context", "the database account"),
  "database.grantees": row("context", "database accounts granted privileges"),
  application: row("resource", "the application a scanner tested"),
  externalExposure: row("resource", "the organisation's own exposed endpoint"),
  attackExposure: row("context", "the attack exposure score"),
  vulnerability: row("context", "the vulnerability (CVE, packages, scores)"),
  "vulnerability.cve.references": row("reference", "links about the CVE"),
  "vulnerability.cwes": row("reference", "the weakness classes and links about them"),
  kernelRootkit: row("context", "what the kernel rootkit check found"),
  cloudArmor: row("context", "the Cloud Armor policy, requests and attack"),
  cloudDlpInspection: row("resource", "the DLP inspection job"),
  cloudDlpDataProfile: row("resource", "the DLP data profile"),
  notebook: row("resource", "the notebook the finding is about"),
  "notebook.lastAuthor": row("actor", "the last account to change the notebook", "principal"),
  disk: row("resource", "the disk the finding is about"),
  loadBalancers: row("resource", "the load balancers the finding is about"),
  networks: row("resource", "the networks the finding is about"),
  affectedResources: row("resource", "other resources the finding affects"),
  aiModel: row("resource", "the AI model the finding is about"),
  vertexAi: row("resource", "the Vertex AI resources the finding is about"),
  backupDisasterRecovery: row("resource", "the backup and DR resources"),
  logEntries: row("identifier", "the log entries the finding was read from"),
  orgPolicies: row("context", "the organization policies involved"),
  securityPosture: row("context", "the posture and policy involved"),
  toxicCombination: row("identifier", "the findings that make up the combination"),
  chokepoint: row("identifier", "the findings a chokepoint leads to"),
  groupMemberships: row("identifier", "the groups the finding belongs to"),
  ipRules: row("context", "the IP rules of a firewall or policy"),
  dataRetentionDeletionEvents: row("context", "data retention events"),
  sourceProperties: row("context", "source-specific properties (read by the detector layouts below)"),
};

/**
 * The detectors' documented sourceProperties layouts: keys (by name, at any depth, flattened or
 * not) whose meaning the layout gives. A key not here is read by what its own name declares
 * (`keyDeclaredKind`) and is otherwise context.
 * - Security Health Analytics: https://cloud.google.com/security-command-center/docs/concepts-vulnerabilities-findings
 * - Event Threat Detection: https://cloud.google.com/security-command-center/docs/how-to-use-event-threat-detection
 * - Container Threat Detection: https://cloud.google.com/security-command-center/docs/how-to-use-container-threat-detection
 * - VM Threat Detection: https://cloud.google.com/security-command-center/docs/concepts-vm-threat-detection-overview
 * - Web Security Scanner: https://cloud.google.com/security-command-center/docs/how-to-remediate-web-security-scanner-findings
 * - Cloud Anomaly Detection (no property reference published; keys from recorded findings, below):
 *   https://cloud.google.com/security-command-center/docs/concepts-security-sources
 */
export const SOURCE_PROPERTY_LAYOUTS: Readonly<Record<string, FieldRow>> = {
  // Security Health Analytics (and Google-written prose any source may carry).
  Explanation: row("context", "SHA: why the setting is a risk (prose)"),
  Recommendation: row("context", "SHA: how to fix it (prose)"),
  ExceptionInstructions: row("context", "SHA: how to accept the risk (prose)"),
  ResourcePath: row("identifier", "SHA: the resource's ancestry"),
  ScannerName: row("context", "SHA: the scanner"),
  ScanRunId: row("identifier", "SHA: the scan run"),
  compliance_standards: row("context", "SHA: compliance mapping"),
  OffendingIamRoles: row("target", "SHA: members holding the roles the finding flags", "text"),
  SourceRanges: row("context", "SHA: a firewall rule's source ranges"),
  ExternalSourceRanges: row("context", "SHA: a firewall rule's external source ranges"),
  AllowedIpRange: row("context", "SHA: which addresses a rule allows"),
  // Event Threat Detection (legacy layout, nested or flattened).
  findingId: row("identifier", "ETD: the finding's id"),
  sourceId: row("identifier", "ETD: the organization and project of the source"),
  evidence: row("identifier", "ETD: the log entries the detection read"),
  detectionCategory: row("context", "ETD: the rule that fired"),
  affectedResources: row("resource", "ETD: the resources affected"),
  instanceDetails: row("resource", "ETD: the reporting instance"),
  sourceInstance: row("resource", "ETD: the reporting instance"),
  destinationInstance: row("resource", "ETD: the destination instance"),
  contextUris: row("reference", "ETD: links about the detection (MITRE, Google, VirusTotal)"),
  // Container Threat Detection (legacy layout).
  Container_Image_Uri: row("resource", "CTD: the container's image"),
  Container_Image_Id: row("resource", "CTD: the container's image"),
  Process_Arguments: row("indicator", "CTD: the process's command line", "text"),
  // Cloud Anomaly Detection (a legacy built-in source: abuse originating from the organization's
  // own resources). Its layout as recorded in GoogleCloudPlatform/professional-services,
  // commit 25d36a10537461f172ea6c9dbee94a2fe5b85858, examples/audit-log-examples/
  // security-command-center/: the vm_* keys describe the organization's VM the activity comes
  // from; what it reached is named apart (abuse_target_ips), an indicator by its own key.
  vm_ips: row("resource", "CAD: the addresses of the organization's own VM the abuse comes from"),
  vm_host_and_zone_names: row("resource", "CAD: the organization's VM and its zone"),
  // VM Threat Detection keeps its values in the Finding's indicator and processes fields.
  // Web Security Scanner: the application it tested and where to read about the issue.
  finalUrl: row("resource", "WSS: the scanned application's URL"),
  fuzzedUrl: row("resource", "WSS: the scanned application's URL"),
  reproductionUrl: row("resource", "WSS: the scanned application's URL"),
  vulnerableUrl: row("resource", "WSS: the scanned application's URL"),
  actionUri: row("resource", "WSS: the form's target in the scanned application"),
  violatingResource: row("resource", "WSS: the resource the application loads that violates the rule"),
  learnMoreUrls: row("reference", "WSS: links about the outdated library"),
};

/** Keys that say they hold prose or a reference, whatever their source. */
const REFERENCE_WORDS = new Set(["reference", "references", "documentation", "doc", "docs"]);

/** Words of a key, lowercased: `destIp` → dest, ip; `properties_ip_0` → properties, ip. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0 && !/^\d+$/.test(w))
    .map((w) => w.toLowerCase());
}

/**
 * The kind of indicator a sourceProperties key declares by its own name, if any: the last word
 * names what the value is (`destIp`, `domain`, `url`, `sha256`, `principalEmail`,
 * `externalMembers`). Ids and names declare none.
 */
export function keyDeclaredKind(key: string): IndicatorKind | "reference" | undefined {
  const words = keyWords(key);
  const last = words.at(-1);
  if (!last) return undefined;
  if (words.some((w) => REFERENCE_WORDS.has(w))) return "reference";
  if (last === "ip" || last === "ips" || (last === "address" && words.at(-2) === "ip")) return "ip";
  // Lower-case compounds some exporters write: srcip, dstip, userip.
  if (
    /^(?:src|dst|dest|source|destination|remote|client|server|user|caller|peer|public|external)ip$/.test(last)
  )
    return "ip";
  if (last === "addresses" && words.at(-2) === "ip") return "ip";
  if (last === "domain" || last === "domains" || last === "fqdn") return "domain";
  if (last === "url" || last === "urls" || last === "uri" || last === "uris") return "url";
  if (["sha256", "sha1", "md5", "hash", "hashes"].includes(last)) return "hash";
  if (["email", "emails", "member", "members", "principal", "principals"].includes(last)) return "principal";
  return undefined;
}

/** Array levels out of a JSON path: `processes[0].binary.sha256` → processes.binary.sha256. */
export function fieldPath(path: string): string {
  return path.replace(/\[\d+\]/g, "");
}

/** The row for a Finding path: the longest named prefix, or context when none names it. */
export function findingFieldRow(path: string): FieldRow & { field: string } {
  const parts = fieldPath(path).split(".");
  for (let n = parts.length; n > 0; n--) {
    const field = parts.slice(0, n).join(".");
    const found = FINDING_FIELDS[field];
    if (found) return { ...found, field };
  }
  return {
    meaning: "context",
    says: "a field the Finding reference table does not name",
    field: parts[0] ?? "",
  };
}

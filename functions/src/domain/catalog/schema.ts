import { z } from "zod";

/** The SCC built-in services whose finding categories the catalog describes. */
export const DetectorSchema = z.enum([
  "event_threat_detection",
  "event_threat_detection_custom_module",
  "container_threat_detection",
  "vm_threat_detection",
  "cloud_run_threat_detection",
  "agent_engine_threat_detection",
  "security_health_analytics",
  "security_health_analytics_custom_module",
  "web_security_scanner",
  "rapid_vulnerability_detection",
  "vm_manager",
  "gke_security_posture",
  "iam_recommender",
  "sensitive_actions",
  "security_posture",
  "scc_errors",
  "sensitive_data_protection",
  "data_security_posture",
  "model_armor",
  "cloud_armor",
  "anomaly_detection",
  "vulnerability_assessment",
]);
export type Detector = z.infer<typeof DetectorSchema>;

/**
 * The offline model's playbook for a category. Named here, beside the category, so routing is
 * a lookup in the catalog rather than a guess from the category's tactic prefix.
 */
export const PlaybookIdSchema = z.enum([
  "cryptomining",
  "iam_grant",
  "bad_indicator",
  "brute_force",
  "credential_access",
  "public_bucket",
  "exfiltration",
  "admin_change",
  "runtime",
  "posture",
]);
export type PlaybookId = z.infer<typeof PlaybookIdSchema>;

export const CatalogEntrySchema = z.strictObject({
  /** The category exactly as SCC writes it in `finding.category`. */
  category: z.string().min(3),
  detector: DetectorSchema,
  findingClass: z.enum([
    "THREAT",
    "VULNERABILITY",
    "MISCONFIGURATION",
    "OBSERVATION",
    "SCC_ERROR",
    "POSTURE_VIOLATION",
    "TOXIC_COMBINATION",
    "SENSITIVE_DATA_RISK",
    "CHOKEPOINT",
    "UNSPECIFIED",
  ]),
  /** What the detector saw, in ferret's words. */
  meaning: z.string().min(20).max(400),
  /** ATT&CK technique ids the detector maps the category to (empty for posture findings). */
  mitre: z.array(z.string().regex(/^T\d{4}(\.\d{3})?$/)).max(6),
  /** What an analyst checks first. */
  investigate: z.array(z.string().min(10).max(300)).min(1).max(5),
  playbook: PlaybookIdSchema,
  /** Google's documentation page the entry was written from. */
  source: z.url(),
  /**
   * "ferret": written in ferret's words from Google's page; "google-list": generated from a
   * saved list of a Google page (scripts/catalog/), with generic checks per playbook.
   */
  origin: z.enum(["ferret", "google-list"]).default("ferret"),
  /** Other spellings of the category: the API name, older or newer display names. */
  aliases: z.array(z.string().min(3)).default([]),
});
export type CatalogEntry = z.infer<typeof CatalogEntrySchema>;
/** An entry as written (origin and aliases default). */
export type CatalogEntryInput = z.input<typeof CatalogEntrySchema>;

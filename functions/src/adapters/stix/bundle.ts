import { z } from "zod";

/**
 * The STIX 2.1 objects the adapter reads. Objects are loose (feeds add x_ properties);
 * an object that does not fit its schema is skipped, not fatal, because one bad entry in
 * a large export must not take the whole feed down.
 */
const Timestamp = z.string().refine((v) => !Number.isNaN(Date.parse(v)), "not a timestamp");

export const StixBaseSchema = z.looseObject({
  type: z.string().min(1),
  id: z.string().regex(/^[a-z0-9-]+--[0-9a-fA-F-]{36}$/),
  created: Timestamp.optional(),
  modified: Timestamp.optional(),
  revoked: z.boolean().optional(),
  labels: z.array(z.string()).optional(),
  created_by_ref: z.string().optional(),
});

export const StixIndicatorSchema = StixBaseSchema.extend({
  type: z.literal("indicator"),
  name: z.string().optional(),
  description: z.string().optional(),
  indicator_types: z.array(z.string()).optional(),
  pattern: z.string().min(1),
  pattern_type: z.string().optional(),
  valid_from: Timestamp.optional(),
  valid_until: Timestamp.optional(),
  confidence: z.number().int().min(0).max(100).optional(),
});
export type StixIndicator = z.infer<typeof StixIndicatorSchema>;

export const StixRelationshipSchema = StixBaseSchema.extend({
  type: z.literal("relationship"),
  relationship_type: z.string(),
  source_ref: z.string(),
  target_ref: z.string(),
});
export type StixRelationship = z.infer<typeof StixRelationshipSchema>;

export const StixOpinionSchema = StixBaseSchema.extend({
  type: z.literal("opinion"),
  opinion: z.enum(["strongly-disagree", "disagree", "neutral", "agree", "strongly-agree"]),
  object_refs: z.array(z.string()).min(1),
  explanation: z.string().optional(),
});
export type StixOpinion = z.infer<typeof StixOpinionSchema>;

/** Malware, campaigns, actors and the like: only their name and kind matter here. */
export const StixNamedSchema = StixBaseSchema.extend({
  name: z.string().min(1),
  malware_types: z.array(z.string()).optional(),
});
export type StixNamed = z.infer<typeof StixNamedSchema>;

/** STIX 2.1 bundles and STIX 2.0 ones (`spec_version` on the bundle, as Unit 42 and MISP 2.0 exports have it). */
export const StixBundleSchema = z.looseObject({
  type: z.literal("bundle"),
  id: z.string().optional(),
  spec_version: z.string().optional(),
  objects: z.array(z.looseObject({ type: z.string(), id: z.string() })),
});

/** Object types whose names are worth reporting as `related`. */
export const RELATED_TYPES = new Set([
  "malware",
  "campaign",
  "threat-actor",
  "intrusion-set",
  "tool",
  "attack-pattern",
  "infrastructure",
]);

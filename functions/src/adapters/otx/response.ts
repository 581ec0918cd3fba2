import { z } from "zod";

/**
 * The `general` section of OTX's indicator details (GET /api/v1/indicators/{type}/{value}/general),
 * read leniently: pulses are community-written, so one odd field (a family given as a
 * string instead of an object, a missing date) is dropped rather than failing the lookup.
 */
const Text = z.string().optional().catch(undefined);

const NamedSchema = z
  .union([z.string(), z.looseObject({ display_name: z.string().optional(), id: z.string().optional() })])
  .transform((v) => (typeof v === "string" ? v : (v.display_name ?? v.id)))
  .catch(undefined);

const Names = z
  .array(NamedSchema)
  .catch([])
  .transform((list) => list.filter((v): v is string => typeof v === "string" && v.trim().length > 0));

export const OtxPulseSchema = z.looseObject({
  id: Text,
  name: Text,
  created: Text,
  modified: Text,
  tags: z
    .array(z.string().catch(""))
    .catch([])
    .transform((t) => t.filter(Boolean)),
  malware_families: Names.default([]),
  adversary: Text,
  attack_ids: Names.default([]),
  TLP: Text,
});
export type OtxPulse = z.infer<typeof OtxPulseSchema>;

const RelatedSchema = z
  .looseObject({
    malware_families: Names.default([]),
    adversary: Names.default([]),
  })
  .catch({ malware_families: [], adversary: [] });

export const OtxValidationSchema = z.looseObject({
  source: Text,
  name: Text,
  message: Text,
});
export type OtxValidation = z.infer<typeof OtxValidationSchema>;

export const OtxGeneralSchema = z.looseObject({
  indicator: Text,
  type: Text,
  validation: z.array(OtxValidationSchema.catch({})).catch([]).default([]),
  false_positive: z.array(z.unknown()).catch([]).default([]),
  pulse_info: z
    .looseObject({
      count: z.number().int().min(0).optional().catch(undefined),
      // An entry that is not a pulse with a name or id says nothing and is dropped.
      pulses: z
        .array(z.unknown())
        .catch([])
        .default([])
        .transform((list) =>
          list.flatMap((p) => {
            const pulse = OtxPulseSchema.safeParse(p);
            return pulse.success && (pulse.data.name || pulse.data.id) ? [pulse.data] : [];
          }),
        ),
      related: z
        .looseObject({ alienvault: RelatedSchema.optional(), other: RelatedSchema.optional() })
        .optional()
        .catch(undefined),
    })
    .default({ pulses: [] }),
});
export type OtxGeneral = z.infer<typeof OtxGeneralSchema>;

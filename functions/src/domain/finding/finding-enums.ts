/**
 * The Finding enums as the official protos number them, for findings serialized with enum
 * numbers instead of names (a protobuf client's toObject without `enums: String`, Python's
 * MessageToDict(use_integers_for_enums=True), some SIEM exports): `"state": 1` is ACTIVE.
 *
 * Copied from @google-cloud/security-center 9.3.1,
 * build/protos/google/cloud/securitycenter/{v1,v2}/finding.proto (message Finding); the test
 * test/unit/domain/finding-enums.test.ts reads those files and fails when they differ.
 * v1 and v2 disagree on one number: Mute.UNDEFINED is 4 in v1 and 3 in v2 (v2 reserves
 * nothing at 3), so the API version of the finding decides (v2 names have /locations/).
 */
export type ApiVersion = "v1" | "v2";
export type EnumField = "state" | "severity" | "mute" | "findingClass";

type EnumTable = Readonly<Record<EnumField, readonly (readonly [number, string])[]>>;

const COMMON = {
  state: [
    [0, "STATE_UNSPECIFIED"],
    [1, "ACTIVE"],
    [2, "INACTIVE"],
  ],
  severity: [
    [0, "SEVERITY_UNSPECIFIED"],
    [1, "CRITICAL"],
    [2, "HIGH"],
    [3, "MEDIUM"],
    [4, "LOW"],
  ],
} as const;

const CLASSES_V2 = [
  [0, "FINDING_CLASS_UNSPECIFIED"],
  [1, "THREAT"],
  [2, "VULNERABILITY"],
  [3, "MISCONFIGURATION"],
  [4, "OBSERVATION"],
  [5, "SCC_ERROR"],
  [6, "POSTURE_VIOLATION"],
  [7, "TOXIC_COMBINATION"],
  [8, "SENSITIVE_DATA_RISK"],
  [9, "CHOKEPOINT"],
] as const;

export const FINDING_ENUMS: Readonly<Record<ApiVersion, EnumTable>> = {
  v1: {
    ...COMMON,
    mute: [
      [0, "MUTE_UNSPECIFIED"],
      [1, "MUTED"],
      [2, "UNMUTED"],
      [4, "UNDEFINED"],
    ],
    findingClass: [...CLASSES_V2, [10, "EXTERNAL_EXPOSURE"]],
  },
  v2: {
    ...COMMON,
    mute: [
      [0, "MUTE_UNSPECIFIED"],
      [1, "MUTED"],
      [2, "UNMUTED"],
      [3, "UNDEFINED"],
    ],
    findingClass: CLASSES_V2,
  },
};

/** v2 finding names carry a location (organizations/…/sources/…/locations/…/findings/…). */
export function apiVersionOf(findingName: string): ApiVersion {
  return /\/locations\/[^/]+\/findings\//.test(findingName) ? "v2" : "v1";
}

/** The enum name for a number (or a numeric string), or undefined when the proto has none. */
export function enumName(field: EnumField, value: number | string, version: ApiVersion): string | undefined {
  const n = typeof value === "number" ? value : /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n)) return undefined;
  return FINDING_ENUMS[version][field].find(([number]) => number === n)?.[1];
}

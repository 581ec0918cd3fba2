/**
 * Composite indexes the Firestore adapters' queries need. The emulator runs any query
 * without them; production Firestore refuses with FAILED_PRECONDITION. Terraform declares
 * one google_firestore_index per entry (collection group, fields in this order).
 */
export interface CompositeIndex {
  readonly collectionGroup: string;
  readonly fields: readonly (
    | { readonly fieldPath: string; readonly order: "ASCENDING" | "DESCENDING" }
    | { readonly fieldPath: string; readonly arrayConfig: "CONTAINS" }
  )[];
  /** The query that needs it. */
  readonly usedBy: string;
}

export const INVESTIGATION_INDEXES: readonly CompositeIndex[] = [
  {
    collectionGroup: "investigations",
    fields: [
      { fieldPath: "status", order: "ASCENDING" },
      { fieldPath: "updatedAt", order: "ASCENDING" },
    ],
    usedBy:
      "InvestigationStore.listStalled and listChangedSince (the sweep), one query per status, oldest first",
  },
  {
    collectionGroup: "investigations",
    fields: [
      { fieldPath: "finding.resource.name", order: "ASCENDING" },
      { fieldPath: "createdAt", order: "DESCENDING" },
    ],
    usedBy: "InvestigationStore.findRelated({ resourceName })",
  },
  {
    collectionGroup: "investigations",
    fields: [
      { fieldPath: "finding.access.principalEmail", order: "ASCENDING" },
      { fieldPath: "createdAt", order: "DESCENDING" },
    ],
    usedBy: "InvestigationStore.findRelated({ principal })",
  },
  {
    collectionGroup: "investigations",
    fields: [
      { fieldPath: "iocValues", arrayConfig: "CONTAINS" },
      { fieldPath: "createdAt", order: "DESCENDING" },
    ],
    usedBy: "InvestigationStore.findRelated({ iocValue })",
  },
];

/**
 * A flat vector index for findNearest: equality filters on prefixFields (in this order), then
 * the vector. Production refuses a findNearest after a where() without the matching index.
 * The adapters that issue those queries declare theirs (FINDING_EMBEDDING_INDEX,
 * MEMORY_VECTOR_INDEX); terraform/firestore.tf declares each one (checked by test/unit/terraform).
 */
export interface VectorIndex {
  readonly collectionGroup: string;
  readonly prefixFields: readonly string[];
  readonly vectorField: string;
  readonly dimension: number;
  readonly usedBy: string;
}

export { type FamilyId, familyOf } from "./families.js";
export { createOfflineModel, type OfflineModelOptions, OfflinePlaybookModel } from "./model.js";
export { OFFLINE_MARK, OFFLINE_MODEL_NAME } from "./provenance.js";

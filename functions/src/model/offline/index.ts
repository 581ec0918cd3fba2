export { createOfflineModel } from "./model.js";
export { OFFLINE_MARK } from "./provenance.js";

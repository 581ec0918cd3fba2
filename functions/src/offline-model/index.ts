export { createOfflineModel } from "./model.js";

import { investigationStoreContract } from "../../contracts/investigation-store.js";
import { MemoryInvestigationStore } from "../../helpers/memory-investigation-store.js";

const NOW = new Date("2026-03-01T12:00:00.000Z");

/** The in-memory store the app layer's pure tests use passes the same suite as Firestore. */
investigationStoreContract({
  name: "in memory (test/helpers/memory-investigation-store.ts)",
  now: NOW,
  async open() {
    const store = new MemoryInvestigationStore({ now: () => NOW });
    return { store, another: () => store.another(), close: async () => {} };
  },
});

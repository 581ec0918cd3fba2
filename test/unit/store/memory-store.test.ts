import { memoryStoreContract } from "../../contracts/memory-store.js";
import { MemoryVectorStore } from "../../helpers/memory-vector-store.js";

/** The in-memory vector store for pure tests passes the same suite as Firestore's. */
memoryStoreContract({
  name: "in memory (test/helpers/memory-vector-store.ts)",
  async open() {
    return { store: new MemoryVectorStore(), close: async () => {} };
  },
});

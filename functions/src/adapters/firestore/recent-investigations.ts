import type { Firestore } from "@google-cloud/firestore";
import type { RecentInvestigations } from "../../console/ports.js";
import type { Investigation } from "../../domain/investigation.js";
import { decodeInvestigation } from "./codec.js";
import { toStorageError } from "./errors.js";
import { COLLECTIONS } from "./paths.js";

/**
 * The console's list: investigations changed after a time, newest change first. A range and
 * an order on the same single field, which Firestore indexes by itself.
 */
export class FirestoreRecentInvestigations implements RecentInvestigations {
  constructor(private readonly db: Firestore) {}

  async recent(query: { updatedAfter: string; limit: number }): Promise<Investigation[]> {
    if (query.limit <= 0) return [];
    try {
      const snapshot = await this.db
        .collection(COLLECTIONS.investigations)
        .where("updatedAt", ">", query.updatedAfter)
        .orderBy("updatedAt", "desc")
        .limit(query.limit)
        .get();
      return snapshot.docs.map((doc) => decodeInvestigation(doc.data(), doc.ref.path));
    } catch (error) {
      throw toStorageError(error, "list recent investigations");
    }
  }
}

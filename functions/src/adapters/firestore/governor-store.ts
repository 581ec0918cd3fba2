import { createHash } from "node:crypto";
import type { DocumentReference, Firestore, Transaction } from "@google-cloud/firestore";
import {
  admissionDecision,
  EMPTY_GOVERNOR_STATE,
  freeSlots,
  type GovernorLimits,
  type GovernorState,
  GovernorStateSchema,
  type GroupKey,
  joinsLead,
  type QueueEntry,
  QueueEntrySchema,
  usageOf,
  withAdmitted,
  withReleased,
} from "../../domain/governor.js";
import { TERMINAL_STATUSES } from "../../domain/investigation.js";
import type {
  AdmitOutcome,
  GovernorStore,
  GroupOutcome,
  RelatedFinding,
} from "../../ports/governor-store.js";
import { ambiguousCommit, toStorageError } from "./errors.js";
import { COLLECTIONS } from "./paths.js";

/**
 * Layout:
 *   governor/state                         GovernorState (running set, usage buckets)
 *   governorQueue/{investigationId}        QueueEntry, drained in sortKey order
 *   governorGroups/{sha256(kind,cat,value)} { leadId, openedAt, kind, category, value }
 *   governorLeads/{leadId}                 { relatedCount }
 *   governorMembers/{findingId}            { leadId }: a grouped finding, so a redelivery is not counted twice
 *   investigations/{leadId}/related/{findingId}  RelatedFinding
 */
export const GOVERNOR_COLLECTIONS = {
  governor: "governor",
  queue: "governorQueue",
  groups: "governorGroups",
  leads: "governorLeads",
  members: "governorMembers",
  related: "related",
} as const;

const STATE_DOC = "state";

export function groupDocId(key: GroupKey): string {
  return createHash("sha256").update(`${key.kind}\n${key.category}\n${key.value}`).digest("hex");
}

export class FirestoreGovernorStore implements GovernorStore {
  constructor(
    private readonly db: Firestore,
    /** Every admission and grouping of a storm meets on a few documents: allow more retries than usual. */
    private readonly maxAttempts = 12,
  ) {}

  async group(
    related: Omit<RelatedFinding, "matchedOn" | "value" | "joinedAt">,
    keys: GroupKey[],
    windowMinutes: number,
    now: Date,
  ): Promise<GroupOutcome> {
    if (windowMinutes <= 0 || keys.length === 0) return { kind: "lead" };
    return this.transact("group a finding", async (tx) => {
      const member = await tx.get(this.col("members").doc(related.findingId));
      if (member.exists) {
        const leadId = String(member.get("leadId"));
        const lead = await tx.get(this.col("leads").doc(leadId));
        return { kind: "already_joined", leadId, relatedCount: Number(lead.get("relatedCount") ?? 0) };
      }
      const groupRefs = keys.map((key) => this.col("groups").doc(groupDocId(key)));
      const groups = await tx.getAll(...groupRefs);
      const leads = groups.map((g) =>
        g.exists ? { leadId: String(g.get("leadId")), openedAt: String(g.get("openedAt")) } : undefined,
      );
      const leadIds = [...new Set(leads.flatMap((l) => (l ? [l.leadId] : [])))];
      const leadDocs = leadIds.length
        ? await tx.getAll(...leadIds.map((id) => this.db.collection(COLLECTIONS.investigations).doc(id)))
        : [];
      const finished = new Map(
        leadDocs.map((d) => [
          d.id,
          d.exists ? TERMINAL_STATUSES.includes(d.get("status") as never) : undefined,
        ]),
      );
      const index = leads.findIndex(
        (l) => l !== undefined && joinsLead(l, related.findingId, finished.get(l.leadId), now, windowMinutes),
      );
      const joined = index >= 0 ? leads[index] : undefined;
      const key = keys[index];
      if (joined && key) {
        const leadRef = this.col("leads").doc(joined.leadId);
        const lead = await tx.get(leadRef);
        const relatedCount = Number(lead.get("relatedCount") ?? 0) + 1;
        const row: RelatedFinding = {
          ...related,
          matchedOn: key.kind,
          value: key.value,
          joinedAt: now.toISOString(),
        };
        tx.set(leadRef, { relatedCount, updatedAt: now.toISOString() }, { merge: true });
        tx.set(this.col("members").doc(related.findingId), { leadId: joined.leadId, joinedAt: row.joinedAt });
        tx.set(this.relatedCol(joined.leadId).doc(related.findingId), row);
        return { kind: "joined", leadId: joined.leadId, relatedCount, matchedOn: key.kind };
      }
      keys.forEach((k, i) => {
        const ref = groupRefs[i] as DocumentReference;
        // A redelivered lead keeps the time it opened its group.
        if (leads[i]?.leadId === related.findingId) return;
        tx.set(ref, { leadId: related.findingId, openedAt: now.toISOString(), ...k });
      });
      return { kind: "lead" };
    });
  }

  async admit(entry: QueueEntry, limits: GovernorLimits, now: Date): Promise<AdmitOutcome> {
    const id = entry.investigationId;
    return this.transact(`admit ${id}`, async (tx) => {
      const [stateSnap, queued] = await tx.getAll(this.stateRef(), this.col("queue").doc(id));
      const state = this.decodeState(stateSnap?.data());
      const running = state.running[id];
      if (running) return { kind: "admitted", seq: running.seq, repeat: true };
      if (queued?.exists)
        return { kind: "queued", entry: QueueEntrySchema.parse(queued.data()), repeat: true };
      const head = await tx.get(this.col("queue").limit(1));
      const decision = admissionDecision(usageOf(state, head.size, now), limits);
      if (decision.admit) {
        const next = withAdmitted(state, id, now);
        tx.set(this.stateRef(), next.state);
        return { kind: "admitted", seq: next.seq, repeat: false };
      }
      const stored = { ...entry, reason: decision.reason };
      tx.create(this.col("queue").doc(id), stored);
      return { kind: "queued", entry: stored, repeat: false };
    });
  }

  async drain(
    limits: GovernorLimits,
    now: Date,
    max: number,
  ): Promise<{ investigationId: string; seq: number }[]> {
    return this.transact("drain the queue", async (tx) => {
      let state = this.decodeState((await tx.get(this.stateRef())).data());
      const slots = Math.min(max, freeSlots(usageOf(state, 0, now), limits));
      if (slots <= 0) return [];
      const head = await tx.get(this.col("queue").orderBy("sortKey").limit(slots));
      if (head.empty) return [];
      const admitted: { investigationId: string; seq: number }[] = [];
      for (const doc of head.docs) {
        const next = withAdmitted(state, doc.id, now);
        state = next.state;
        admitted.push({ investigationId: doc.id, seq: next.seq });
        tx.delete(doc.ref);
      }
      tx.set(this.stateRef(), state);
      return admitted;
    });
  }

  async release(investigationId: string, tokens: number, now: Date): Promise<boolean> {
    return this.transact(`release ${investigationId}`, async (tx) => {
      const state = this.decodeState((await tx.get(this.stateRef())).data());
      const next = withReleased(state, investigationId, tokens, now);
      if (!next) return false;
      tx.set(this.stateRef(), next);
      return true;
    });
  }

  async state(): Promise<GovernorState> {
    const snap = await this.call("read the governor state", () => this.stateRef().get());
    return this.decodeState(snap.data());
  }

  async queue(limit: number): Promise<QueueEntry[]> {
    const snap = await this.call("list the queue", () =>
      this.col("queue").orderBy("sortKey").limit(limit).get(),
    );
    return snap.docs.map((d) => QueueEntrySchema.parse(d.data()));
  }

  async queueDepth(): Promise<number> {
    const snap = await this.call("count the queue", () => this.col("queue").count().get());
    return snap.data().count;
  }

  async aheadOf(sortKey: string): Promise<number> {
    const snap = await this.call("count the queue ahead", () =>
      this.col("queue").where("sortKey", "<", sortKey).count().get(),
    );
    return snap.data().count;
  }

  async relatedCount(leadId: string): Promise<number> {
    const snap = await this.call("read a lead", () => this.col("leads").doc(leadId).get());
    return Number(snap.get("relatedCount") ?? 0);
  }

  async listRelated(leadId: string, limit: number): Promise<RelatedFinding[]> {
    const snap = await this.call("list related findings", () =>
      this.relatedCol(leadId).orderBy("joinedAt").limit(limit).get(),
    );
    return snap.docs.map((d) => d.data() as RelatedFinding);
  }

  async topGroups(limit: number): Promise<{ leadId: string; relatedCount: number }[]> {
    const snap = await this.call("list groups", () =>
      this.col("leads").orderBy("relatedCount", "desc").limit(limit).get(),
    );
    return snap.docs.map((d) => ({ leadId: d.id, relatedCount: Number(d.get("relatedCount") ?? 0) }));
  }

  private decodeState(data: unknown): GovernorState {
    if (data === undefined) return EMPTY_GOVERNOR_STATE;
    return GovernorStateSchema.parse(data);
  }

  private stateRef(): DocumentReference {
    return this.col("governor").doc(STATE_DOC);
  }

  private col(name: keyof typeof GOVERNOR_COLLECTIONS) {
    return this.db.collection(GOVERNOR_COLLECTIONS[name]);
  }

  private relatedCol(leadId: string) {
    return this.db
      .collection(COLLECTIONS.investigations)
      .doc(leadId)
      .collection(GOVERNOR_COLLECTIONS.related);
  }

  /**
   * Every operation here is idempotent (a repeat finds its own effect and returns it), so a
   * commit whose answer was lost is simply retried by the caller: no write token needed.
   */
  private async transact<T>(what: string, work: (tx: Transaction) => Promise<T>): Promise<T> {
    try {
      return await this.db.runTransaction(work, { maxAttempts: this.maxAttempts });
    } catch (error) {
      throw ambiguousCommit(error) ?? toStorageError(error, what);
    }
  }

  private async call<T>(what: string, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw toStorageError(error, what);
    }
  }
}

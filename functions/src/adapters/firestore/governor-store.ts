import { createHash } from "node:crypto";
import type { DocumentReference, Firestore, Transaction } from "@google-cloud/firestore";
import type { FindingPrint } from "../../domain/finding/finding-print.js";
import {
  coveredBecause,
  differencesFromLead,
  EMPTY_GOVERNOR_STATE,
  freeSlots,
  type GovernorLimits,
  type GovernorState,
  GovernorStateSchema,
  type GroupKey,
  type GroupLead,
  type GroupSubject,
  GroupSubjectSchema,
  joinsLead,
  type QueueEntry,
  QueueEntrySchema,
  usageOf,
  withAdmitted,
  withReleased,
} from "../../domain/governor.js";
import type {
  DrainOutcome,
  EnqueueOutcome,
  GovernorStore,
  GroupOutcome,
  RelatedFinding,
  Release,
} from "../../ports/governor-store.js";
import { ambiguousCommit, toStorageError } from "./errors.js";
import { COLLECTIONS } from "./paths.js";

/**
 * Layout (decision 0039: which documents each operation writes, and how often):
 *   governor/state                          GovernorState (running set, usage buckets): written by drains only
 *   governorQueue/{investigationId}         QueueEntry, drained in sortKey order: created by ingest, deleted by a drain
 *   governorAdmitted/{investigationId}      { seq, admittedAt }: written once, by the drain that admitted it
 *   governorGroups/{sha256(kind,cat,value)} { leadId, openedAt, subject, finishedAt? }: written when a lead opens it and when the lead finishes
 *   governorLeads/{leadId}                  { leadId, openedAt, category }: written once, when the lead opens its groups
 *   governorMembers/{findingId}             { leadId, examination }: a grouped finding, so a redelivery is not counted twice
 *   investigations/{leadId}/related/{findingId}  RelatedFinding
 * A group's count is a count() over its related findings, never a counter every join writes.
 */
export const GOVERNOR_COLLECTIONS = {
  governor: "governor",
  queue: "governorQueue",
  admitted: "governorAdmitted",
  groups: "governorGroups",
  leads: "governorLeads",
  members: "governorMembers",
  related: "related",
} as const;

const STATE_DOC = "state";

export function groupDocId(key: GroupKey): string {
  return createHash("sha256").update(`${key.kind}\n${key.category}\n${key.value}`).digest("hex");
}

function leadOf(data: Record<string, unknown> | undefined): GroupLead | undefined {
  if (!data) return undefined;
  const subject = GroupSubjectSchema.safeParse(data.subject);
  return {
    leadId: String(data.leadId),
    openedAt: String(data.openedAt),
    ...(typeof data.finishedAt === "string" ? { finishedAt: data.finishedAt } : {}),
    ...(subject.success ? { subject: subject.data } : {}),
  };
}

/** A stored related finding; rows written before findings were examined one by one count as covered. */
function relatedOf(data: Record<string, unknown>): RelatedFinding {
  const row = data as Partial<RelatedFinding> & Pick<RelatedFinding, "findingId" | "name">;
  return {
    findingId: row.findingId,
    name: row.name,
    category: String(row.category ?? ""),
    severity: String(row.severity ?? ""),
    eventTime: String(row.eventTime ?? ""),
    matchedOn: row.matchedOn === "principal" ? "principal" : "resource",
    value: String(row.value ?? ""),
    joinedAt: String(row.joinedAt ?? ""),
    examination: row.examination === "own" ? "own" : "covered",
    reason: String(row.reason ?? "grouped before findings were examined one by one"),
    ...(row.principal ? { principal: row.principal } : {}),
    resource: String(row.resource ?? ""),
  };
}

export class FirestoreGovernorStore implements GovernorStore {
  constructor(
    private readonly db: Firestore,
    /** Concurrent joins of one group read the same group documents: allow more retries than usual. */
    private readonly maxAttempts = 12,
  ) {}

  async group(
    related: Pick<RelatedFinding, "findingId" | "name" | "category" | "severity" | "eventTime">,
    keys: GroupKey[],
    subject: GroupSubject,
    print: FindingPrint,
    windowMinutes: number,
    now: Date,
  ): Promise<GroupOutcome> {
    if (windowMinutes <= 0 || keys.length === 0) return { kind: "lead" };
    return this.transact("group a finding", async (tx) => {
      const member = await tx.get(this.col("members").doc(related.findingId));
      if (member.exists) {
        const examination = member.get("examination") === "own" ? "own" : "covered";
        return { kind: "already_joined", leadId: String(member.get("leadId")), examination };
      }
      const groupRefs = keys.map((key) => this.col("groups").doc(groupDocId(key)));
      const groups = await tx.getAll(...groupRefs);
      const leads = groups.map((g) => leadOf(g.data()));
      // The live leads among the finding's groups; one whose activity it repeats covers it.
      const live = leads.flatMap((l, i) =>
        l !== undefined && joinsLead(l, related.findingId, now, windowMinutes)
          ? [{ lead: l, key: keys[i] as GroupKey }]
          : [],
      );
      const compared = live.map((c) => ({
        ...c,
        differences: c.lead.subject
          ? differencesFromLead(c.lead.subject, print)
          : ["the lead's group was opened without what it is about"],
      }));
      const met = compared.find((c) => c.differences.length === 0) ?? compared[0];
      if (met) {
        // The lead's verdict stands only for the same activity; anything else gets its own investigation.
        const examination = met.differences.length === 0 ? "covered" : "own";
        const reason =
          examination === "covered" && met.lead.subject
            ? coveredBecause(met.lead.subject)
            : met.differences.join("; ");
        const row: RelatedFinding = {
          ...related,
          matchedOn: met.key.kind,
          value: met.key.value,
          joinedAt: now.toISOString(),
          examination,
          reason,
          ...(subject.principal ? { principal: subject.principal } : {}),
          resource: subject.resource,
        };
        tx.set(this.col("members").doc(related.findingId), {
          leadId: met.lead.leadId,
          joinedAt: row.joinedAt,
          examination,
        });
        tx.set(this.relatedCol(met.lead.leadId).doc(related.findingId), row);
        // A finding examined on its own leads the groups nobody leads yet (its resource, say),
        // so its own repeats are covered by its investigation rather than each investigated.
        if (examination === "own")
          this.open(
            tx,
            related,
            keys,
            subject,
            leads,
            groupRefs,
            now,
            live.map((c) => c.key),
          );
        return { kind: "joined", leadId: met.lead.leadId, matchedOn: met.key.kind, examination, reason };
      }
      this.open(tx, related, keys, subject, leads, groupRefs, now, []);
      return { kind: "lead" };
    });
  }

  /** Makes the finding the lead of its groups, except those in `taken` (led by a live investigation). */
  private open(
    tx: Transaction,
    related: Pick<RelatedFinding, "findingId" | "category">,
    keys: readonly GroupKey[],
    subject: GroupSubject,
    leads: readonly (GroupLead | undefined)[],
    groupRefs: readonly DocumentReference[],
    now: Date,
    taken: readonly GroupKey[],
  ): void {
    let opened = false;
    keys.forEach((k, i) => {
      const ref = groupRefs[i] as DocumentReference;
      // A redelivered lead keeps the time it opened its group.
      if (leads[i]?.leadId === related.findingId || taken.includes(k)) return;
      opened = true;
      tx.set(ref, { leadId: related.findingId, openedAt: now.toISOString(), subject, ...k });
    });
    if (opened)
      tx.set(this.col("leads").doc(related.findingId), {
        leadId: related.findingId,
        openedAt: now.toISOString(),
        category: related.category,
      });
  }

  async enqueue(entry: QueueEntry): Promise<EnqueueOutcome> {
    const id = entry.investigationId;
    return this.transact(`queue ${id}`, async (tx) => {
      const [queued, admitted] = await tx.getAll(this.col("queue").doc(id), this.col("admitted").doc(id));
      if (admitted?.exists)
        return {
          kind: "admitted",
          seq: Number(admitted.get("seq")),
          admittedAt: String(admitted.get("admittedAt")),
        };
      if (queued?.exists)
        return { kind: "queued", entry: QueueEntrySchema.parse(queued.data()), repeat: true };
      tx.create(this.col("queue").doc(id), entry);
      return { kind: "queued", entry, repeat: false };
    });
  }

  async drain(
    limits: GovernorLimits,
    now: Date,
    max: number,
    releases: readonly Release[],
  ): Promise<DrainOutcome> {
    return this.transact("drain the queue", async (tx) => {
      let state = this.decodeState((await tx.get(this.stateRef())).data());
      // A transaction reads before it writes: the groups the finished leads opened, then the head.
      const groupRefs = releases.flatMap((r) =>
        r.keys.map((k) => ({ leadId: r.investigationId, ref: this.col("groups").doc(groupDocId(k)) })),
      );
      const groupSnaps = groupRefs.length > 0 ? await tx.getAll(...groupRefs.map((g) => g.ref)) : [];
      const released: string[] = [];
      for (const r of releases) {
        const next = withReleased(state, r.investigationId, r.tokens, now);
        if (!next) continue;
        state = next;
        released.push(r.investigationId);
      }
      const slots = Math.min(max, freeSlots(usageOf(state, 0, now), limits));
      const head = slots > 0 ? await tx.get(this.col("queue").orderBy("sortKey").limit(slots)) : undefined;
      groupSnaps.forEach((snap, i) => {
        const g = groupRefs[i];
        if (g && snap.exists && snap.get("leadId") === g.leadId && !snap.get("finishedAt"))
          tx.update(snap.ref, { finishedAt: now.toISOString() });
      });
      const admitted: { investigationId: string; seq: number }[] = [];
      for (const doc of head?.docs ?? []) {
        const next = withAdmitted(state, doc.id, now);
        state = next.state;
        admitted.push({ investigationId: doc.id, seq: next.seq });
        tx.delete(doc.ref);
        tx.set(this.col("admitted").doc(doc.id), { seq: next.seq, admittedAt: now.toISOString() });
      }
      if (released.length > 0 || admitted.length > 0) tx.set(this.stateRef(), state);
      return { released, admitted };
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

  async unannounced(limit: number): Promise<QueueEntry[]> {
    const snap = await this.call("list the queue's unannounced entries", () =>
      this.col("queue").where("announced", "==", false).limit(limit).get(),
    );
    return snap.docs.map((d) => QueueEntrySchema.parse(d.data()));
  }

  async markAnnounced(investigationId: string): Promise<void> {
    await this.call("mark a queue entry announced", () =>
      this.col("queue")
        .doc(investigationId)
        .update({ announced: true })
        .then(
          () => undefined,
          (error: unknown) => {
            // Admitted meanwhile: its entry is gone, and there is nothing to mark.
            if ((error as { code?: number }).code !== 5) throw error;
          },
        ),
    );
  }

  async relatedCount(leadId: string): Promise<number> {
    const snap = await this.call("count related findings", () => this.relatedCol(leadId).count().get());
    return snap.data().count;
  }

  async listRelated(leadId: string, limit: number): Promise<RelatedFinding[]> {
    const snap = await this.call("list related findings", () =>
      this.relatedCol(leadId).orderBy("joinedAt").limit(limit).get(),
    );
    return snap.docs.map((d) => relatedOf(d.data()));
  }

  async topGroups(limit: number, scan = 100): Promise<{ leadId: string; relatedCount: number }[]> {
    const snap = await this.call("list leads", () =>
      this.col("leads").orderBy("openedAt", "desc").limit(scan).get(),
    );
    const counted = await Promise.all(
      snap.docs.map(async (d) => ({ leadId: d.id, relatedCount: await this.relatedCount(d.id) })),
    );
    return counted
      .filter((g) => g.relatedCount > 0)
      .sort((a, b) => b.relatedCount - a.relatedCount || a.leadId.localeCompare(b.leadId))
      .slice(0, limit);
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

import type {
  DocumentReference,
  DocumentSnapshot,
  Firestore,
  Query,
  Transaction,
} from "@google-cloud/firestore";
import { NotFoundError, StorageError } from "../../domain/errors.js";
import {
  type Investigation,
  type InvestigationEvent,
  InvestigationSchema,
} from "../../domain/investigation.js";
import { type Reflection, ReflectionSchema } from "../../domain/reflection.js";
import { type StepResult, StepResultSchema } from "../../domain/results.js";
import type {
  Committed,
  EventDraft,
  InvestigationStore,
  Transition,
} from "../../ports/investigation-store.js";
import {
  checked,
  decodeClaim,
  decodeEvent,
  decodeInvestigation,
  decodeReflection,
  decodeStepResult,
  encodeEvent,
  encodeInvestigation,
  encodeReflection,
  encodeStepResult,
} from "./codec.js";
import { ALREADY_EXISTS, grpcCode, toStorageError } from "./errors.js";
import { KeyedMutex } from "./keyed-mutex.js";
import { COLLECTIONS, claimDocId, eventDocId, reflectionDocId, SUBCOLLECTIONS } from "./paths.js";

export interface FirestoreInvestigationStoreOptions {
  /** Clock for event timestamps and claims; injectable so tests can pin it. */
  now?: () => Date;
  /**
   * Attempts per transaction before contention surfaces as a retryable StorageError; the
   * client's own default is 5, with its exponential backoff between attempts.
   */
  maxTransactionAttempts?: number;
}

const InvestigationIdSchema = InvestigationSchema.shape.id;

/**
 * InvestigationStore on Firestore (the emulator locally). Layout in ./paths.ts, encoding in
 * ./codec.ts, required composite indexes in ./indexes.ts.
 */
export class FirestoreInvestigationStore implements InvestigationStore {
  private readonly now: () => Date;
  private readonly maxAttempts: number;
  private readonly perInvestigation = new KeyedMutex();

  constructor(
    private readonly db: Firestore,
    options: FirestoreInvestigationStoreOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.maxAttempts = options.maxTransactionAttempts ?? 5;
  }

  /**
   * One atomic batch of create() writes (the investigation and its initial events) rather
   * than a read-then-write transaction: duplicates then fail fast with ALREADY_EXISTS
   * instead of deadlocking on the read lock, and the batch commits all or nothing.
   */
  async create(
    investigation: Investigation,
    events: EventDraft[],
  ): Promise<Committed & { created: boolean }> {
    const valid = checked(InvestigationSchema, investigation, "investigation");
    const numbered = this.number(valid.id, 0, events);
    const stored: Investigation = { ...valid, eventSeq: numbered.length };
    const batch = this.db.batch();
    batch.create(this.investigationRef(valid.id), encodeInvestigation(stored));
    for (const event of numbered) batch.create(this.eventRef(valid.id, event.seq), encodeEvent(event));
    try {
      await batch.commit();
      return { investigation: stored, events: numbered, created: true };
    } catch (error) {
      if (grpcCode(error) !== ALREADY_EXISTS) throw toStorageError(error, `create ${valid.id}`);
    }
    const existing = await this.get(valid.id);
    if (!existing) {
      throw new StorageError(
        `investigation ${valid.id} is absent but its events exist; refusing to overwrite them`,
        false,
      );
    }
    return { investigation: existing, events: [], created: false };
  }

  async get(id: string): Promise<Investigation | undefined> {
    const ref = this.investigationRef(id);
    const snapshot = await this.call(`get ${id}`, () => ref.get());
    return snapshot.exists ? decodeInvestigation(snapshot.data(), ref.path) : undefined;
  }

  async require(id: string): Promise<Investigation> {
    const found = await this.get(id);
    if (!found) throw new NotFoundError(`investigation ${id} not found`);
    return found;
  }

  async update(id: string, change: (current: Investigation) => Transition | undefined): Promise<Committed> {
    return this.transact(id, `update ${id}`, async (tx) => {
      const current = await this.readInvestigation(tx, id);
      const transition = change(current);
      return transition ? this.apply(tx, current, transition) : { investigation: current, events: [] };
    });
  }

  async recordStepResult(
    id: string,
    result: StepResult,
    change: (current: Investigation) => Transition,
  ): Promise<Committed & { created: boolean; result: StepResult }> {
    const valid = checked(StepResultSchema, result, "step result");
    const resultRef = this.investigationRef(id).collection(SUBCOLLECTIONS.results).doc(valid.stepId);
    return this.transact(id, `record step result ${id}/${valid.stepId}`, async (tx) => {
      const [current, existing] = await this.readWith(tx, id, resultRef);
      if (existing.exists) {
        return {
          investigation: current,
          events: [],
          created: false,
          result: decodeStepResult(existing.data(), resultRef.path),
        };
      }
      const committed = this.apply(tx, current, change(current));
      tx.create(resultRef, encodeStepResult(valid));
      return { ...committed, created: true, result: valid };
    });
  }

  async getStepResult(id: string, stepId: string): Promise<StepResult | undefined> {
    const ref = this.investigationRef(id).collection(SUBCOLLECTIONS.results).doc(stepId);
    const snapshot = await this.call(`get step result ${ref.path}`, () => ref.get());
    return snapshot.exists ? decodeStepResult(snapshot.data(), ref.path) : undefined;
  }

  async listStepResults(id: string): Promise<StepResult[]> {
    const results = await this.list(
      this.investigationRef(id).collection(SUBCOLLECTIONS.results),
      decodeStepResult,
    );
    // In the order they finished, which is the order the agent learned them.
    return results.sort(
      (a, b) => a.finishedAt.localeCompare(b.finishedAt) || a.stepId.localeCompare(b.stepId),
    );
  }

  async recordReflection(
    id: string,
    reflection: Reflection,
    change: (current: Investigation) => Transition,
  ): Promise<Committed & { created: boolean; reflection: Reflection }> {
    const valid = checked(ReflectionSchema, reflection, "reflection");
    const ref = this.investigationRef(id)
      .collection(SUBCOLLECTIONS.reflections)
      .doc(reflectionDocId(valid.wave));
    return this.transact(id, `record reflection ${id}/wave ${valid.wave}`, async (tx) => {
      const [current, existing] = await this.readWith(tx, id, ref);
      if (existing.exists) {
        return {
          investigation: current,
          events: [],
          created: false,
          reflection: decodeReflection(existing.data(), ref.path),
        };
      }
      const committed = this.apply(tx, current, change(current));
      tx.create(ref, encodeReflection(valid));
      return { ...committed, created: true, reflection: valid };
    });
  }

  async getReflection(id: string, wave: number): Promise<Reflection | undefined> {
    const ref = this.investigationRef(id).collection(SUBCOLLECTIONS.reflections).doc(reflectionDocId(wave));
    const snapshot = await this.call(`get reflection ${ref.path}`, () => ref.get());
    return snapshot.exists ? decodeReflection(snapshot.data(), ref.path) : undefined;
  }

  async listReflections(id: string): Promise<Reflection[]> {
    return this.list(
      this.investigationRef(id).collection(SUBCOLLECTIONS.reflections).orderBy("wave"),
      decodeReflection,
    );
  }

  async listEvents(id: string): Promise<InvestigationEvent[]> {
    return this.list(this.investigationRef(id).collection(SUBCOLLECTIONS.events).orderBy("seq"), decodeEvent);
  }

  async claimOnce(scope: string, key: string, value?: Record<string, string>): Promise<boolean> {
    const ref = this.db.collection(COLLECTIONS.claims).doc(claimDocId(scope, key));
    try {
      await ref.create({ scope, key, value: value ?? {}, claimedAt: this.now().toISOString() });
      return true;
    } catch (error) {
      if (grpcCode(error) === ALREADY_EXISTS) return false;
      throw toStorageError(error, `claim ${scope}/${key}`);
    }
  }

  async readClaim(scope: string, key: string): Promise<Record<string, string> | undefined> {
    const ref = this.db.collection(COLLECTIONS.claims).doc(claimDocId(scope, key));
    const snapshot = await this.call(`read claim ${scope}/${key}`, () => ref.get());
    return snapshot.exists ? decodeClaim(snapshot.data(), ref.path).value : undefined;
  }

  /**
   * One equality (or array-contains) query per criterion, each newest first, merged. Each
   * fetches one extra document so that dropping `excludeId` still leaves `limit` of them.
   */
  async findRelated(query: {
    resourceName?: string;
    principal?: string;
    iocValue?: string;
    excludeId?: string;
    limit: number;
  }): Promise<Investigation[]> {
    if (query.limit <= 0) return [];
    const investigations = this.db.collection(COLLECTIONS.investigations);
    const queries: Query[] = [];
    if (query.resourceName)
      queries.push(investigations.where("finding.resource.name", "==", query.resourceName));
    if (query.principal)
      queries.push(investigations.where("finding.access.principalEmail", "==", query.principal));
    if (query.iocValue) queries.push(investigations.where("iocValues", "array-contains", query.iocValue));
    const found = await Promise.all(
      queries.map((q) =>
        this.list(q.orderBy("createdAt", "desc").limit(query.limit + 1), decodeInvestigation),
      ),
    );
    const byId = new Map<string, Investigation>();
    for (const investigation of found.flat()) {
      if (investigation.id !== query.excludeId) byId.set(investigation.id, investigation);
    }
    return [...byId.values()]
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id))
      .slice(0, query.limit);
  }

  private investigationRef(id: string): DocumentReference {
    checked(InvestigationIdSchema, id, "investigation id");
    return this.db.collection(COLLECTIONS.investigations).doc(id);
  }

  private eventRef(id: string, seq: number): DocumentReference {
    return this.investigationRef(id).collection(SUBCOLLECTIONS.events).doc(eventDocId(seq));
  }

  private async readInvestigation(tx: Transaction, id: string): Promise<Investigation> {
    const ref = this.investigationRef(id);
    return this.decodeExisting(id, await tx.get(ref));
  }

  /** The investigation and one of its child documents, read in one round trip. */
  private async readWith(
    tx: Transaction,
    id: string,
    child: DocumentReference,
  ): Promise<[Investigation, DocumentSnapshot]> {
    const [investigation, other] = await tx.getAll(this.investigationRef(id), child);
    if (!investigation || !other)
      throw new StorageError(`Firestore returned fewer documents than asked for`, true);
    return [this.decodeExisting(id, investigation), other];
  }

  private decodeExisting(id: string, snapshot: DocumentSnapshot): Investigation {
    if (!snapshot.exists) throw new NotFoundError(`investigation ${id} not found`);
    return decodeInvestigation(snapshot.data(), snapshot.ref.path);
  }

  /**
   * Writes a transition inside the caller's transaction. The store owns eventSeq: whatever
   * the change function put there is replaced by the last sequence number it appends.
   */
  private apply(tx: Transaction, current: Investigation, transition: Transition): Committed {
    const next = checked(InvestigationSchema, transition.investigation, "investigation");
    if (next.id !== current.id) {
      throw new StorageError(`a change to ${current.id} returned investigation ${next.id}`, false);
    }
    const events = this.number(current.id, current.eventSeq, transition.events ?? []);
    const investigation: Investigation = { ...next, eventSeq: current.eventSeq + events.length };
    tx.set(this.investigationRef(current.id), encodeInvestigation(investigation));
    for (const event of events) tx.create(this.eventRef(current.id, event.seq), encodeEvent(event));
    return { investigation, events };
  }

  private number(id: string, lastSeq: number, drafts: EventDraft[]): InvestigationEvent[] {
    const at = this.now().toISOString();
    return drafts.map((draft, i) => ({
      investigationId: id,
      seq: lastSeq + i + 1,
      type: draft.type,
      at,
      message: draft.message,
      ...(draft.stepId === undefined ? {} : { stepId: draft.stepId }),
    }));
  }

  private transact<T>(id: string, what: string, work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.perInvestigation.run(id, () =>
      this.call(what, () => this.db.runTransaction(work, { maxAttempts: this.maxAttempts })),
    );
  }

  private async list<T>(query: Query, decode: (data: unknown, path: string) => T): Promise<T[]> {
    const snapshot = await this.call("query", () => query.get());
    return snapshot.docs.map((doc) => decode(doc.data(), doc.ref.path));
  }

  private async call<T>(what: string, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw toStorageError(error, what);
    }
  }
}

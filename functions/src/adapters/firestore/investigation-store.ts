import { randomUUID } from "node:crypto";
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
  type InvestigationStatus,
  InvestigationStatusSchema,
  TERMINAL_STATUSES,
} from "../../domain/investigation.js";
import { type Reflection, ReflectionSchema } from "../../domain/reflection.js";
import { type StepResult, StepResultSchema } from "../../domain/results.js";
import {
  type Committed,
  type EventDraft,
  type InvestigationStore,
  numberEvents,
  type Transition,
} from "../../ports/investigation-store.js";
import {
  checked,
  type DocumentFields,
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
import { ALREADY_EXISTS, ambiguousCommit, grpcCode, toStorageError } from "./errors.js";
import { KeyedMutex } from "./keyed-mutex.js";
import {
  COLLECTIONS,
  claimDocId,
  EXPIRE_AT_FIELD,
  earlyReflectionDocId,
  eventDocId,
  markerExpiry,
  reflectionDocId,
  SUBCOLLECTIONS,
} from "./paths.js";

export interface FirestoreInvestigationStoreOptions {
  /** Clock for event timestamps and claims; injectable so tests can pin it. */
  now?: () => Date;
  /**
   * Attempts per transaction before contention surfaces as a retryable StorageError; the
   * client's own default is 5, with its exponential backoff between attempts.
   */
  maxTransactionAttempts?: number;
  /** Makes the token that marks a write as this call's own; injectable so tests can replay one. */
  newWriteToken?: () => string;
}

/**
 * Field holding the token of the call that last wrote a document. The client retries a
 * commit whose answer was lost, and that retry fails (ALREADY_EXISTS for a create, "invalid
 * or closed" for a transaction) although the first commit landed. The token is how a call
 * tells its own landed write from someone else's. Not part of any domain schema, so
 * decoding drops it.
 */
const WRITE_TOKEN = "writeToken";
/** On an investigation: the events its last write appended, so a caller can recover them. */
const WRITTEN_SEQS = "writtenSeqs";

/** Thrown inside a transaction that finds its own earlier attempt already committed. */
class OwnWriteLanded extends Error {
  constructor(readonly snapshot: DocumentSnapshot) {
    super("this call's earlier attempt already committed");
  }
}

/** Per call: the token its writes carry. */
interface WriteMark {
  token: string;
}

const InvestigationIdSchema = InvestigationSchema.shape.id;

/**
 * InvestigationStore on Firestore (the emulator locally). Layout in ./paths.ts, encoding in
 * ./codec.ts, required composite indexes in ./indexes.ts.
 */
export class FirestoreInvestigationStore implements InvestigationStore {
  private readonly now: () => Date;
  private readonly maxAttempts: number;
  private readonly newWriteToken: () => string;
  private readonly perInvestigation = new KeyedMutex();

  constructor(
    private readonly db: Firestore,
    options: FirestoreInvestigationStoreOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.maxAttempts = options.maxTransactionAttempts ?? 5;
    this.newWriteToken = options.newWriteToken ?? randomUUID;
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
    const numbered = numberEvents(valid.id, 0, events, this.now());
    const stored: Investigation = { ...valid, eventSeq: numbered.length };
    const token = this.newWriteToken();
    const ref = this.investigationRef(valid.id);
    const batch = this.db.batch();
    batch.create(ref, {
      ...encodeInvestigation(stored),
      [WRITE_TOKEN]: token,
      [WRITTEN_SEQS]: numbered.map((e) => e.seq),
    });
    for (const event of numbered) batch.create(this.eventRef(valid.id, event.seq), encodeEvent(event));
    try {
      await batch.commit();
      return { investigation: stored, events: numbered, created: true };
    } catch (error) {
      if (grpcCode(error) !== ALREADY_EXISTS) throw toStorageError(error, `create ${valid.id}`);
    }
    const snapshot = await this.call(`get ${valid.id}`, () => ref.get());
    const existing = snapshot.exists ? decodeInvestigation(snapshot.data(), ref.path) : undefined;
    // Our own commit landed and only its answer was lost: this call did create it.
    if (existing && snapshot.get(WRITE_TOKEN) === token) {
      return { investigation: existing, events: numbered, created: true };
    }
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
    return this.transact(
      id,
      `update ${id}`,
      async (tx, mark) => {
        const current = await this.readInvestigation(tx, id, mark);
        const transition = change(current);
        return transition
          ? this.apply(tx, mark, current, transition)
          : { investigation: current, events: [] };
      },
      (landed) => landed,
    );
  }

  async recordStepResult(
    id: string,
    result: StepResult,
    change: (current: Investigation) => Transition,
  ): Promise<Committed & { created: boolean; result: StepResult }> {
    const valid = checked(StepResultSchema, result, "step result");
    const ref = this.investigationRef(id).collection(SUBCOLLECTIONS.results).doc(valid.stepId);
    const out = await this.recordOnce(id, `record step result ${id}/${valid.stepId}`, ref, change, {
      value: valid,
      encode: encodeStepResult,
      decode: decodeStepResult,
    });
    const { value, ...rest } = out;
    return { ...rest, result: value };
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
      .doc(valid.early ? earlyReflectionDocId(valid.early.stepId) : reflectionDocId(valid.wave));
    const label = valid.early ? `early after ${valid.early.stepId}` : `wave ${valid.wave}`;
    const out = await this.recordOnce(id, `record reflection ${id}/${label}`, ref, change, {
      value: valid,
      encode: encodeReflection,
      decode: decodeReflection,
    });
    const { value, ...rest } = out;
    return { ...rest, reflection: value };
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
    const token = this.newWriteToken();
    try {
      await ref.create({
        scope,
        key,
        value: value ?? {},
        claimedAt: this.now().toISOString(),
        [WRITE_TOKEN]: token,
        [EXPIRE_AT_FIELD]: markerExpiry(this.now()),
      });
      return true;
    } catch (error) {
      if (grpcCode(error) !== ALREADY_EXISTS) throw toStorageError(error, `claim ${scope}/${key}`);
    }
    // Without this check a claim whose commit was retried would be lost by everyone: the
    // write exists, yet the caller that made it would think another one holds it.
    const snapshot = await this.call(`read claim ${scope}/${key}`, () => ref.get());
    return snapshot.get(WRITE_TOKEN) === token;
  }

  async readClaim(scope: string, key: string): Promise<Record<string, string> | undefined> {
    const ref = this.db.collection(COLLECTIONS.claims).doc(claimDocId(scope, key));
    const snapshot = await this.call(`read claim ${scope}/${key}`, () => ref.get());
    return snapshot.exists ? decodeClaim(snapshot.data(), ref.path).value : undefined;
  }

  /** One query per unfinished status (the status + updatedAt index), merged oldest first. */
  async listStalled(query: { updatedBefore: string; limit: number }): Promise<Investigation[]> {
    if (query.limit <= 0) return [];
    const open = InvestigationStatusSchema.options.filter((s) => !TERMINAL_STATUSES.includes(s));
    const found = await Promise.all(
      open.map((status) => this.inStatus(status, "<", query.updatedBefore, query.limit)),
    );
    return found
      .flat()
      .sort((a, b) => a.updatedAt.localeCompare(b.updatedAt))
      .slice(0, query.limit);
  }

  async listChangedSince(query: {
    status: InvestigationStatus;
    updatedAfter: string;
    limit: number;
  }): Promise<Investigation[]> {
    if (query.limit <= 0) return [];
    return this.inStatus(query.status, ">", query.updatedAfter, query.limit);
  }

  private inStatus(
    status: InvestigationStatus,
    op: "<" | ">",
    updatedAt: string,
    limit: number,
  ): Promise<Investigation[]> {
    return this.list(
      this.db
        .collection(COLLECTIONS.investigations)
        .where("status", "==", status)
        .where("updatedAt", op, updatedAt)
        .orderBy("updatedAt", "asc")
        .limit(limit),
      decodeInvestigation,
    );
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

  /**
   * Creates a write-once child document (a step result, a reflection) in the transaction
   * that applies its change to the investigation; a repeat returns the stored one unchanged.
   */
  private recordOnce<T>(
    id: string,
    what: string,
    ref: DocumentReference,
    change: (current: Investigation) => Transition,
    doc: { value: T; encode: (value: T) => DocumentFields; decode: (data: unknown, path: string) => T },
  ): Promise<Committed & { created: boolean; value: T }> {
    return this.transact(
      id,
      what,
      async (tx, mark) => {
        const [current, existing] = await this.readWith(tx, id, ref, mark);
        if (existing.exists) {
          return {
            investigation: current,
            events: [],
            created: false,
            value: doc.decode(existing.data(), ref.path),
          };
        }
        const committed = this.apply(tx, mark, current, change(current));
        tx.create(ref, doc.encode(doc.value));
        return { ...committed, created: true, value: doc.value };
      },
      (landed) => ({ ...landed, created: true, value: doc.value }),
    );
  }

  private investigationRef(id: string): DocumentReference {
    checked(InvestigationIdSchema, id, "investigation id");
    return this.db.collection(COLLECTIONS.investigations).doc(id);
  }

  private eventRef(id: string, seq: number): DocumentReference {
    return this.investigationRef(id).collection(SUBCOLLECTIONS.events).doc(eventDocId(seq));
  }

  private async readInvestigation(tx: Transaction, id: string, mark: WriteMark): Promise<Investigation> {
    const ref = this.investigationRef(id);
    return this.decodeExisting(id, await tx.get(ref), mark);
  }

  /** The investigation and one of its child documents, read in one round trip. */
  private async readWith(
    tx: Transaction,
    id: string,
    child: DocumentReference,
    mark: WriteMark,
  ): Promise<[Investigation, DocumentSnapshot]> {
    const [investigation, other] = await tx.getAll(this.investigationRef(id), child);
    if (!investigation || !other)
      throw new StorageError(`Firestore returned fewer documents than asked for`, true);
    return [this.decodeExisting(id, investigation, mark), other];
  }

  /** A transaction retried after its commit landed reads its own write: stop, do not redo it. */
  private decodeExisting(id: string, snapshot: DocumentSnapshot, mark?: WriteMark): Investigation {
    if (!snapshot.exists) throw new NotFoundError(`investigation ${id} not found`);
    if (mark && snapshot.get(WRITE_TOKEN) === mark.token) throw new OwnWriteLanded(snapshot);
    return decodeInvestigation(snapshot.data(), snapshot.ref.path);
  }

  /** What a landed write committed: the investigation as written and the events it appended. */
  private async landedWrite(snapshot: DocumentSnapshot): Promise<Committed> {
    const investigation = decodeInvestigation(snapshot.data(), snapshot.ref.path);
    const seqs: unknown = snapshot.get(WRITTEN_SEQS);
    const refs = Array.isArray(seqs)
      ? seqs.filter((n): n is number => typeof n === "number").map((n) => this.eventRef(investigation.id, n))
      : [];
    const docs = refs.length > 0 ? await this.call("read written events", () => this.db.getAll(...refs)) : [];
    const events = docs.filter((d) => d.exists).map((d) => decodeEvent(d.data(), d.ref.path));
    return { investigation, events };
  }

  /**
   * Writes a transition inside the caller's transaction. The store owns eventSeq: whatever
   * the change function put there is replaced by the last sequence number it appends.
   */
  private apply(tx: Transaction, mark: WriteMark, current: Investigation, transition: Transition): Committed {
    const next = checked(InvestigationSchema, transition.investigation, "investigation");
    if (next.id !== current.id) {
      throw new StorageError(`a change to ${current.id} returned investigation ${next.id}`, false);
    }
    const events = numberEvents(current.id, current.eventSeq, transition.events ?? [], this.now());
    const investigation: Investigation = { ...next, eventSeq: current.eventSeq + events.length };
    tx.set(this.investigationRef(current.id), {
      ...encodeInvestigation(investigation),
      [WRITE_TOKEN]: mark.token,
      [WRITTEN_SEQS]: events.map((e) => e.seq),
    });
    for (const event of events) tx.create(this.eventRef(current.id, event.seq), encodeEvent(event));
    return { investigation, events };
  }

  /**
   * Runs `work` in a transaction. When the commit's answer is lost, the client's retry of it
   * fails although it landed, or the runner reruns `work`, which then reads its own write;
   * either way `recover` builds the caller's answer from what landed, so the caller is not
   * told "failed" (or "someone else did it") about its own write.
   */
  private transact<T>(
    id: string,
    what: string,
    work: (tx: Transaction, mark: WriteMark) => Promise<T>,
    recover: (landed: Committed) => T,
  ): Promise<T> {
    const mark: WriteMark = { token: this.newWriteToken() };
    return this.perInvestigation.run(id, async () => {
      let failure: unknown;
      try {
        return await this.db.runTransaction((tx) => work(tx, mark), { maxAttempts: this.maxAttempts });
      } catch (error) {
        if (error instanceof OwnWriteLanded) return recover(await this.landedWrite(error.snapshot));
        failure = error;
      }
      const ref = this.investigationRef(id);
      const after = await this.call(`check ${what}`, () => ref.get()).catch(() => undefined);
      if (after?.exists && after.get(WRITE_TOKEN) === mark.token) {
        return recover(await this.landedWrite(after));
      }
      throw ambiguousCommit(failure) ?? toStorageError(failure, what);
    });
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

import type { z } from "zod";
import { InvalidInputError, NotFoundError, StorageError } from "../../functions/src/domain/errors.js";
import {
  type Investigation,
  type InvestigationEvent,
  InvestigationSchema,
  type InvestigationStatus,
  TERMINAL_STATUSES,
} from "../../functions/src/domain/investigation.js";
import { type Reflection, ReflectionSchema } from "../../functions/src/domain/reflection.js";
import { type StepResult, StepResultSchema } from "../../functions/src/domain/results.js";
import { describeIssues } from "../../functions/src/model/structured.js";
import {
  type Committed,
  type EventDraft,
  type InvestigationStore,
  numberEvents,
  type Transition,
} from "../../functions/src/ports/investigation-store.js";

/** What one database holds; several store objects over one of these are several processes. */
interface Data {
  investigations: Map<string, Investigation>;
  results: Map<string, Map<string, StepResult>>;
  /** Keyed like Firestore's documents: the wave, or `early-<stepId>`. */
  reflections: Map<string, Map<string, Reflection>>;
  events: Map<string, InvestigationEvent[]>;
  claims: Map<string, Record<string, string>>;
}

const InvestigationIdSchema = InvestigationSchema.shape.id;

/**
 * The whole InvestigationStore port in memory, for pure tests of the app layer. It passes the
 * same contract suite as the Firestore adapter (test/contracts/investigation-store.ts): schemas
 * checked on the way in, values copied on the way in and out (undefined fields dropped, as
 * Firestore drops them), the event sequence owned by the store, once-only records and claims.
 * Each call's read-modify-write runs without yielding, so calls are atomic as Firestore's
 * transactions are. `another()` is a second process's view of the same data.
 */
export class MemoryInvestigationStore implements InvestigationStore {
  private readonly data: Data;
  private readonly now: () => Date;

  constructor(options: { now?: () => Date } = {}, data?: Data) {
    this.now = options.now ?? (() => new Date());
    this.data = data ?? {
      investigations: new Map(),
      results: new Map(),
      reflections: new Map(),
      events: new Map(),
      claims: new Map(),
    };
  }

  another(): MemoryInvestigationStore {
    return new MemoryInvestigationStore({ now: this.now }, this.data);
  }

  async create(
    investigation: Investigation,
    events: EventDraft[],
  ): Promise<Committed & { created: boolean }> {
    const valid = checked(InvestigationSchema, investigation, "investigation");
    const existing = this.data.investigations.get(valid.id);
    if (existing) return { investigation: copy(existing), events: [], created: false };
    const numbered = numberEvents(valid.id, 0, events, this.now());
    const stored: Investigation = { ...valid, eventSeq: numbered.length };
    this.data.investigations.set(valid.id, copy(stored));
    this.data.events.set(valid.id, copy(numbered));
    return { investigation: copy(stored), events: numbered, created: true };
  }

  async get(id: string): Promise<Investigation | undefined> {
    checked(InvestigationIdSchema, id, "investigation id");
    const found = this.data.investigations.get(id);
    return found ? copy(found) : undefined;
  }

  async require(id: string): Promise<Investigation> {
    const found = await this.get(id);
    if (!found) throw new NotFoundError(`investigation ${id} not found`);
    return found;
  }

  async update(id: string, change: (current: Investigation) => Transition | undefined): Promise<Committed> {
    const current = this.current(id);
    const transition = change(copy(current));
    return transition ? this.apply(current, transition) : { investigation: copy(current), events: [] };
  }

  async recordStepResult(
    id: string,
    result: StepResult,
    change: (current: Investigation) => Transition,
  ): Promise<Committed & { created: boolean; result: StepResult }> {
    const valid = checked(StepResultSchema, result, "step result");
    const current = this.current(id);
    const results = this.children(this.data.results, id);
    const stored = results.get(valid.stepId);
    if (stored) return { investigation: copy(current), events: [], created: false, result: copy(stored) };
    const committed = this.apply(current, change(copy(current)));
    results.set(valid.stepId, copy(valid));
    return { ...committed, created: true, result: copy(valid) };
  }

  async getStepResult(id: string, stepId: string): Promise<StepResult | undefined> {
    const found = this.data.results.get(id)?.get(stepId);
    return found ? copy(found) : undefined;
  }

  async listStepResults(id: string): Promise<StepResult[]> {
    return [...(this.data.results.get(id)?.values() ?? [])]
      .map(copy)
      .sort((a, b) => a.finishedAt.localeCompare(b.finishedAt) || a.stepId.localeCompare(b.stepId));
  }

  async recordReflection(
    id: string,
    reflection: Reflection,
    change: (current: Investigation) => Transition,
  ): Promise<Committed & { created: boolean; reflection: Reflection }> {
    const valid = checked(ReflectionSchema, reflection, "reflection");
    const current = this.current(id);
    const reflections = this.children(this.data.reflections, id);
    const key = valid.early ? `early-${valid.early.stepId}` : String(valid.wave);
    const stored = reflections.get(key);
    if (stored) return { investigation: copy(current), events: [], created: false, reflection: copy(stored) };
    const committed = this.apply(current, change(copy(current)));
    reflections.set(key, copy(valid));
    return { ...committed, created: true, reflection: copy(valid) };
  }

  async getReflection(id: string, wave: number): Promise<Reflection | undefined> {
    const found = this.data.reflections.get(id)?.get(String(wave));
    return found ? copy(found) : undefined;
  }

  async listReflections(id: string): Promise<Reflection[]> {
    return [...(this.data.reflections.get(id)?.values() ?? [])].map(copy).sort((a, b) => a.wave - b.wave);
  }

  async listEvents(id: string): Promise<InvestigationEvent[]> {
    return copy(this.data.events.get(id) ?? []);
  }

  async claimOnce(scope: string, key: string, value?: Record<string, string>): Promise<boolean> {
    const id = JSON.stringify([scope, key]);
    if (this.data.claims.has(id)) return false;
    this.data.claims.set(id, { ...(value ?? {}) });
    return true;
  }

  async readClaim(scope: string, key: string): Promise<Record<string, string> | undefined> {
    const found = this.data.claims.get(JSON.stringify([scope, key]));
    return found ? { ...found } : undefined;
  }

  async listStalled(query: { updatedBefore: string; limit: number }): Promise<Investigation[]> {
    return this.select(
      (inv) => !TERMINAL_STATUSES.includes(inv.status) && inv.updatedAt < query.updatedBefore,
      query.limit,
    );
  }

  async listChangedSince(query: {
    status: InvestigationStatus;
    updatedAfter: string;
    limit: number;
  }): Promise<Investigation[]> {
    return this.select(
      (inv) => inv.status === query.status && inv.updatedAt > query.updatedAfter,
      query.limit,
    );
  }

  async findRelated(query: {
    resourceName?: string;
    principal?: string;
    iocValue?: string;
    excludeId?: string;
    limit: number;
  }): Promise<Investigation[]> {
    const related = (inv: Investigation) =>
      (query.resourceName !== undefined &&
        query.resourceName !== "" &&
        inv.finding.resource.name === query.resourceName) ||
      (query.principal !== undefined &&
        query.principal !== "" &&
        inv.finding.access?.principalEmail === query.principal) ||
      (query.iocValue !== undefined && query.iocValue !== "" && inv.iocValues.includes(query.iocValue));
    return [...this.data.investigations.values()]
      .filter((inv) => inv.id !== query.excludeId && related(inv))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id))
      .slice(0, Math.max(0, query.limit))
      .map(copy);
  }

  /** Least recently changed first. */
  private select(match: (inv: Investigation) => boolean, limit: number): Investigation[] {
    return [...this.data.investigations.values()]
      .filter(match)
      .sort((a, b) => a.updatedAt.localeCompare(b.updatedAt))
      .slice(0, Math.max(0, limit))
      .map(copy);
  }

  private current(id: string): Investigation {
    checked(InvestigationIdSchema, id, "investigation id");
    const found = this.data.investigations.get(id);
    if (!found) throw new NotFoundError(`investigation ${id} not found`);
    return found;
  }

  /** The store owns eventSeq: whatever the change put there is replaced. */
  private apply(current: Investigation, transition: Transition): Committed {
    const next = checked(InvestigationSchema, transition.investigation, "investigation");
    if (next.id !== current.id)
      throw new StorageError(`a change to ${current.id} returned investigation ${next.id}`, false);
    const events = numberEvents(current.id, current.eventSeq, transition.events ?? [], this.now());
    const investigation: Investigation = { ...next, eventSeq: current.eventSeq + events.length };
    this.data.investigations.set(current.id, copy(investigation));
    this.data.events.set(current.id, [...(this.data.events.get(current.id) ?? []), ...copy(events)]);
    return { investigation: copy(investigation), events };
  }

  private children<T>(all: Map<string, Map<string, T>>, id: string): Map<string, T> {
    let found = all.get(id);
    if (!found) {
      found = new Map();
      all.set(id, found);
    }
    return found;
  }
}

function checked<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new InvalidInputError(
      `refusing to store an invalid ${what}: ${describeIssues(result.error.issues)}`,
    );
  return copy(result.data);
}

/** A stored copy: nothing the caller does later reaches it, and undefined fields are gone. */
function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

import type { Investigation, InvestigationEvent, InvestigationStatus } from "../domain/investigation.js";
import type { Reflection } from "../domain/reflection.js";
import type { StepResult } from "../domain/results.js";

export type EventDraft = Pick<InvestigationEvent, "type" | "message" | "stepId">;

/**
 * The events a commit appends, numbered after the investigation's last one (`eventSeq`) and
 * stamped with the commit's time: every store numbers them this way, so the notifier's
 * once-per-event posting works whichever store wrote them.
 */
export function numberEvents(
  id: string,
  lastSeq: number,
  drafts: readonly EventDraft[],
  at: Date,
): InvestigationEvent[] {
  return drafts.map((draft, i) => ({
    investigationId: id,
    seq: lastSeq + i + 1,
    type: draft.type,
    at: at.toISOString(),
    message: draft.message,
    ...(draft.stepId === undefined ? {} : { stepId: draft.stepId }),
  }));
}

/** A state change: the new investigation document and the events it appends. */
export interface Transition {
  investigation: Investigation;
  events?: EventDraft[];
}

export interface Committed {
  investigation: Investigation;
  /** Events appended by this call, with their sequence numbers; empty when nothing changed. */
  events: InvestigationEvent[];
}

/**
 * Once-only markers for side effects (a Slack post, a scored session): what the notifier and
 * the Slack handlers need besides reads, so their test doubles need nothing else.
 */
export interface ClaimStore {
  /**
   * Marks a side effect as done exactly once. Returns false when the key was claimed before;
   * `value` is stored for later readers.
   */
  claimOnce(scope: string, key: string, value?: Record<string, string>): Promise<boolean>;
  readClaim(scope: string, key: string): Promise<Record<string, string> | undefined>;
}

/** One investigation and what it recorded, read without changing anything. */
export interface InvestigationReader {
  get(id: string): Promise<Investigation | undefined>;
  /** Like get, but throws NotFoundError. */
  require(id: string): Promise<Investigation>;
  getStepResult(id: string, stepId: string): Promise<StepResult | undefined>;
  listStepResults(id: string): Promise<StepResult[]>;
  getReflection(id: string, wave: number): Promise<Reflection | undefined>;
  listReflections(id: string): Promise<Reflection[]>;
  listEvents(id: string): Promise<InvestigationEvent[]>;
}

/**
 * Changes to investigation state. Every write that matters happens in one transaction with
 * the investigation document, so a retried or duplicated call observes the first call's
 * effect instead of repeating it.
 */
export interface InvestigationWriter {
  /** Creates the investigation unless one with the same id exists (then created=false). */
  create(investigation: Investigation, events: EventDraft[]): Promise<Committed & { created: boolean }>;
  /**
   * Read-modify-write in a transaction. The function may run more than once (transaction
   * retries) and must be pure; returning undefined leaves everything untouched.
   */
  update(id: string, change: (current: Investigation) => Transition | undefined): Promise<Committed>;
  /**
   * Writes a step result once, together with the investigation change it implies. When a
   * result for the step already exists, nothing is written and created=false.
   */
  recordStepResult(
    id: string,
    result: StepResult,
    change: (current: Investigation) => Transition,
  ): Promise<Committed & { created: boolean; result: StepResult }>;
  /** Same once-only contract as recordStepResult, keyed by the reflection's wave number. */
  recordReflection(
    id: string,
    reflection: Reflection,
    change: (current: Investigation) => Transition,
  ): Promise<Committed & { created: boolean; reflection: Reflection }>;
}

/** Queries across investigations: the sweep, the report and related findings. */
export interface InvestigationSearch {
  /**
   * Investigations not finished (queued, planning, running, concluding) whose document has
   * not changed since `updatedBefore` (ISO time), least recently changed first.
   */
  listStalled(query: { updatedBefore: string; limit: number }): Promise<Investigation[]>;
  /** Investigations in `status` changed after `updatedAfter` (ISO time), oldest change first. */
  listChangedSince(query: {
    status: InvestigationStatus;
    updatedAfter: string;
    limit: number;
  }): Promise<Investigation[]>;
  /** Earlier investigations sharing a resource, principal or IOC value, newest first. */
  findRelated(query: {
    resourceName?: string;
    principal?: string;
    iocValue?: string;
    excludeId?: string;
    limit: number;
  }): Promise<Investigation[]>;
}

/**
 * Investigation state, all of it: what the composition root builds (Firestore). A caller
 * that needs only a part depends on that part's port.
 */
export interface InvestigationStore
  extends InvestigationReader,
    InvestigationWriter,
    ClaimStore,
    InvestigationSearch {}

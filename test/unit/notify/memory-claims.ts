import { NotFoundError } from "../../../functions/src/domain/errors.js";
import type { Investigation, InvestigationEvent } from "../../../functions/src/domain/investigation.js";
import type { Reflection } from "../../../functions/src/domain/reflection.js";
import type { StepResult } from "../../../functions/src/domain/results.js";
import type { ChatMessage, ChatSink } from "../../../functions/src/ports/chat-sink.js";
import type { ClaimStore, InvestigationReader } from "../../../functions/src/ports/investigation-store.js";

/**
 * The two ports the notifier and the thread-question handler use (claims and reads), in
 * memory, with claimOnce's contract (first writer wins, value kept) so the claim protocol's
 * edge cases (crashes between steps, failing writes) can be driven deterministically. The Firestore-backed behaviour is
 * covered by test/integration/notify.
 */
export class MemoryClaimStore implements ClaimStore, InvestigationReader {
  readonly claims = new Map<string, Record<string, string>>();
  readonly investigations = new Map<string, Investigation>();
  readonly results = new Map<string, StepResult[]>();
  readonly reflections = new Map<string, Reflection[]>();
  readonly events = new Map<string, InvestigationEvent[]>();
  /** Make the next claimOnce on this scope throw (a Firestore outage at the worst moment). */
  failClaimOn: string | undefined;

  async claimOnce(scope: string, key: string, value: Record<string, string> = {}): Promise<boolean> {
    if (this.failClaimOn === scope) {
      this.failClaimOn = undefined;
      throw new Error(`claim store unavailable for ${scope}`);
    }
    const id = `${scope}/${key}`;
    if (this.claims.has(id)) return false;
    this.claims.set(id, { ...value });
    return true;
  }
  async readClaim(scope: string, key: string): Promise<Record<string, string> | undefined> {
    return this.claims.get(`${scope}/${key}`);
  }
  async get(id: string): Promise<Investigation | undefined> {
    return this.investigations.get(id);
  }
  async require(id: string): Promise<Investigation> {
    const inv = this.investigations.get(id);
    if (!inv) throw new NotFoundError(id);
    return inv;
  }
  async getStepResult(id: string, stepId: string): Promise<StepResult | undefined> {
    return this.results.get(id)?.find((r) => r.stepId === stepId);
  }
  async listStepResults(id: string): Promise<StepResult[]> {
    return this.results.get(id) ?? [];
  }
  async getReflection(id: string, wave: number): Promise<Reflection | undefined> {
    return this.reflections.get(id)?.find((r) => r.wave === wave);
  }
  async listReflections(id: string): Promise<Reflection[]> {
    return this.reflections.get(id) ?? [];
  }
  async listEvents(id: string): Promise<InvestigationEvent[]> {
    return this.events.get(id) ?? [];
  }
}

/** Records what would reach Slack; can be told to fail or to hold a post open. */
export class RecordingSink implements ChatSink {
  readonly posted: Array<ChatMessage & { ts: string }> = [];
  private seq = 0;
  private readonly failures: unknown[] = [];
  private gate: Promise<void> | undefined;

  failNext(error: unknown): void {
    this.failures.push(error);
  }
  /** Posts wait until the returned function is called. */
  hold(): () => void {
    let release = () => {};
    this.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    return () => {
      this.gate = undefined;
      release();
    };
  }
  async post(message: ChatMessage): Promise<{ ts: string }> {
    if (this.gate) await this.gate;
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    this.seq += 1;
    const ts = `1714557600.${String(this.seq).padStart(6, "0")}`;
    this.posted.push({ ...message, ts });
    return { ts };
  }
  readonly updated: Array<ChatMessage & { ts: string }> = [];
  async update(ts: string, message: ChatMessage): Promise<void> {
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    this.updated.push({ ...message, ts });
  }
}

import { InvalidWorkflowError, tagged } from "../errors.js";
import { sizeOf } from "../sizes.js";
import type { WfValue } from "../values.js";
import type { MemoryMeter } from "./memory.js";

/**
 * Variable scopes. A subworkflow gets a fresh "function" scope; `for` bodies get a
 * "loop" scope (variables first assigned there vanish after the loop); each parallel
 * branch or iteration gets a "branch" scope that may only write parent variables
 * listed in its `shared` set. Every stored value is accounted in the execution's
 * MemoryMeter until the scope is released.
 */
export class Scope {
  private readonly vars = new Map<string, WfValue>();
  private readonly sizes = new Map<string, number>();
  private readonly meter: MemoryMeter | null;

  constructor(
    readonly parent: Scope | null,
    readonly kind: "function" | "loop" | "branch",
    readonly shared: ReadonlySet<string> = new Set(),
    meter: MemoryMeter | null = null,
  ) {
    this.meter = meter ?? parent?.meter ?? null;
  }

  has(name: string): boolean {
    return this.vars.has(name) || (this.parent?.has(name) ?? false);
  }

  lookup(name: string): WfValue {
    for (let s: Scope | null = this; s; s = s.parent) {
      if (s.vars.has(name)) return s.vars.get(name) ?? null;
    }
    throw tagged("KeyError", `variable '${name}' is not defined`);
  }

  /** Binds a name in this very scope (parameters, loop variables). */
  define(name: string, value: WfValue): void {
    this.store(name, value);
  }

  /** Assigns like an `assign` step: updates the visible variable, or creates it here. */
  assign(name: string, value: WfValue, path: string): void {
    (this.ownerForWrite(name, path) ?? this).store(name, value);
  }

  /** Reads a variable for an in-place update of one of its elements (`a.b: 1`). */
  readForUpdate(name: string, path: string): WfValue {
    const owner = this.ownerForWrite(name, path);
    if (!owner) throw tagged("KeyError", `variable '${name}' is not defined`);
    return owner.vars.get(name) ?? null;
  }

  /** Re-measures a variable after one of its elements was updated in place. */
  updated(name: string, path: string): void {
    const owner = this.ownerForWrite(name, path);
    if (owner) owner.store(name, owner.vars.get(name) ?? null);
  }

  /** Gives back the memory of this scope's variables; called when the scope ends. */
  release(): void {
    let total = 0;
    for (const size of this.sizes.values()) total += size;
    this.sizes.clear();
    this.meter?.release(total);
  }

  private store(name: string, value: WfValue): void {
    const size = sizeOf(value);
    this.meter?.reserve(size - (this.sizes.get(name) ?? 0));
    this.sizes.set(name, size);
    this.vars.set(name, value);
  }

  /**
   * The scope holding `name`, checking that every parallel branch crossed on the way
   * shares it. Workflows rejects such writes at deploy time; reaching this at run time
   * means the static check was bypassed (e.g. by a jump), so it is a definition error.
   */
  private ownerForWrite(name: string, path: string): Scope | null {
    const crossed: Scope[] = [];
    for (let s: Scope | null = this; s; s = s.parent) {
      if (s.vars.has(name)) {
        const blocking = crossed.find((branch) => !branch.shared.has(name));
        if (blocking) {
          throw new InvalidWorkflowError(
            path,
            `cannot assign '${name}' in a parallel branch: it is not in 'shared'`,
          );
        }
        return s;
      }
      if (s.kind === "branch") crossed.push(s);
    }
    return null;
  }
}

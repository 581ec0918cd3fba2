import { tagged } from "../errors.js";
import { MAX_VARIABLE_MEMORY_BYTES } from "../limits.js";

/** Running total of the variables (and arguments) alive in one execution. */
export class MemoryMeter {
  private total = 0;

  constructor(private readonly limit = MAX_VARIABLE_MEMORY_BYTES) {}

  get used(): number {
    return this.total;
  }

  /** Raises ResourceLimitError, without recording anything, if `delta` would pass the limit. */
  reserve(delta: number): void {
    if (this.total + delta > this.limit) {
      throw tagged(
        "ResourceLimitError",
        `variables would use ${this.total + delta} bytes, over the ${this.limit}-byte memory limit`,
      );
    }
    this.total += delta;
  }

  release(bytes: number): void {
    this.total -= bytes;
  }
}

import { tagged } from "../errors.js";
import { MAX_STRING_BYTES, MAX_VARIABLE_MEMORY_BYTES } from "../limits.js";
import { isList, isMap, type WfValue } from "../values.js";

/**
 * The size of a value as the runner accounts for it: UTF-8 bytes of strings and map
 * keys, 8 bytes per number, 1 per null or boolean. Workflows does not document how it
 * measures variable memory; this approximation makes the documented 512 KB bite at
 * about the same amount of data. Also refuses strings over the documented size.
 */
export function sizeOf(value: WfValue): number {
  if (value === null || typeof value === "boolean") return 1;
  if (typeof value === "string") return checkedStringBytes(value);
  if (isList(value)) return value.reduce<number>((sum, item) => sum + sizeOf(item), 0);
  if (isMap(value)) {
    let sum = 0;
    for (const [key, item] of value) sum += Buffer.byteLength(key) + sizeOf(item);
    return sum;
  }
  return 8;
}

export function checkedStringBytes(text: string): number {
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_STRING_BYTES) {
    throw tagged(
      "ResourceLimitError",
      `string of ${bytes} bytes exceeds the ${MAX_STRING_BYTES}-byte limit for a string`,
    );
  }
  return bytes;
}

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

import { tagged } from "./errors.js";
import { MAX_STRING_BYTES } from "./limits.js";
import { isList, isMap, type WfValue } from "./values.js";

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

/** UTF-8 size of a string, raising ResourceLimitError past the documented string limit. */
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

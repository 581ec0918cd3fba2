import { createHash } from "node:crypto";
import { z } from "zod";
import { InvalidInputError } from "../domain/errors.js";
import type { SqlParam } from "../ports/log-warehouse.js";

/**
 * Page tokens name a position in the capped result of one exact statement. They carry a
 * fingerprint of the statement and its parameters so a token can only continue the query
 * it came from; they are opaque to callers and grant nothing by themselves.
 */
const PageTokenSchema = z.object({
  v: z.literal(1),
  f: z.string().regex(/^[0-9a-f]{16}$/),
  o: z.number().int().min(0),
});

export function queryFingerprint(sql: string, params: Readonly<Record<string, SqlParam>>): string {
  const sorted = Object.keys(params)
    .sort()
    .map((k) => [k, params[k]]);
  return createHash("sha256")
    .update(JSON.stringify([sql, sorted]))
    .digest("hex")
    .slice(0, 16);
}

export function encodePageToken(fingerprint: string, offset: number): string {
  return Buffer.from(JSON.stringify({ v: 1, f: fingerprint, o: offset }), "utf8").toString("base64url");
}

/** Returns the row offset the token points at; refuses tokens from another query. */
export function decodePageToken(token: string, fingerprint: string): number {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw new InvalidInputError("pageToken is not a token this warehouse issued");
  }
  const parsed = PageTokenSchema.safeParse(decoded);
  if (!parsed.success) throw new InvalidInputError("pageToken is not a token this warehouse issued");
  if (parsed.data.f !== fingerprint) {
    throw new InvalidInputError(
      "pageToken belongs to a different query; send the same sql and params as the first page",
    );
  }
  return parsed.data.o;
}

import { z } from "zod";
import { InvalidInputError } from "../../domain/errors.js";

/**
 * A page token names a row offset in the result of one finished BigQuery job. The job
 * keeps its result for about a day, so the next page is read from it on whichever
 * function instance serves the call, without running (and paying for) the query again.
 * The token also carries the statement's fingerprint, and the warehouse checks the job's
 * own statement and parameters before reading it, so a forged job id reads nothing the
 * guard did not allow.
 */
const JobPageTokenSchema = z.object({
  v: z.literal(2),
  f: z.string().regex(/^[0-9a-f]{16}$/),
  j: z.string().regex(/^[A-Za-z0-9_-]{1,1024}$/),
  l: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/)
    .optional(),
  o: z.number().int().min(0),
});

export interface JobPosition {
  jobId: string;
  location?: string;
  offset: number;
}

export function encodeJobPageToken(fingerprint: string, position: JobPosition): string {
  const token = {
    v: 2,
    f: fingerprint,
    j: position.jobId,
    ...(position.location ? { l: position.location } : {}),
    o: position.offset,
  };
  return Buffer.from(JSON.stringify(token), "utf8").toString("base64url");
}

export function decodeJobPageToken(token: string, fingerprint: string): JobPosition {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw new InvalidInputError("pageToken is not a token this warehouse issued");
  }
  const parsed = JobPageTokenSchema.safeParse(decoded);
  if (!parsed.success) throw new InvalidInputError("pageToken is not a token this warehouse issued");
  if (parsed.data.f !== fingerprint) {
    throw new InvalidInputError(
      "pageToken belongs to a different query; send the same sql and params as the first page",
    );
  }
  return {
    jobId: parsed.data.j,
    ...(parsed.data.l ? { location: parsed.data.l } : {}),
    offset: parsed.data.o,
  };
}

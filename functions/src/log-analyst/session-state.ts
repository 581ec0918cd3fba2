import { InvalidInputError } from "../domain/errors.js";
import type { Ioc } from "../domain/ioc.js";
import type { JsonObject, JsonValue } from "../domain/json.js";
import type { TimeWindow } from "./contract.js";

/** A read the sub-agent can continue: the same runbook or statement with the same values. */
export interface PagedRead {
  runbook?: string;
  sql?: string;
  params: Record<string, string | number | boolean>;
  pageSize?: number;
}

/** One warehouse read of the session, kept for the answer's list of queries. */
export interface QueryRecord {
  tool: string;
  /** The arguments as the model sent them. */
  args: JsonObject;
  ok: boolean;
  summary: string;
  /** The tool's data (rows, totals, executed SQL) or its error. */
  data: JsonValue;
}

/**
 * What one session remembers between its tool calls: the window its queries default to,
 * the page tokens it was handed (so `next_page` needs only the token), every read it
 * made, and the IOCs the rows showed.
 */
export class SessionState {
  readonly queries: QueryRecord[] = [];
  readonly observedIocs: Ioc[] = [];
  private readonly pages = new Map<string, PagedRead>();

  constructor(readonly window: TimeWindow) {}

  rememberPage(token: string, read: PagedRead): void {
    this.pages.set(token, read);
  }

  /** Throws for a token this session was not given, so a made-up token reads nothing. */
  pageFor(token: string): PagedRead {
    const read = this.pages.get(token);
    if (!read)
      throw new InvalidInputError(
        "unknown pageToken: pass the nextPageToken of an earlier result of this session, unchanged",
      );
    return read;
  }

  record(query: QueryRecord, iocs: readonly Ioc[] = []): void {
    this.queries.push(query);
    this.observedIocs.push(...iocs);
  }
}

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A tiny stand-in for Slack's Web API on 127.0.0.1: accepts method calls the way Slack does
 * (form-encoded or JSON body, token as a Bearer header or a `token` field), records them,
 * answers chat.postMessage with `{ ok, channel, ts }` and increasing ts, chat.update with the
 * edited ts (unknown ts → message_not_found), views.open and usergroups.users.list (members
 * set by `setGroup`), auth.test and conversations.info; with `channels` and `scopes` it refuses as
 * Slack does (channel_not_found, not_in_channel, missing_scope); it can be scripted to answer the next calls with a rate limit or an
 * error. `thread()` shows a thread as a person would see it now: the root as last edited,
 * then the replies. slack-signer.ts plays Slack's other half: signed
 * interaction requests to ferret.
 */

export interface RecordedRequest {
  /** Web API method from the path, e.g. "chat.postMessage". */
  method: string;
  authorization: string | undefined;
  contentType: string;
  /** Body fields exactly as received: strings for form bodies, JSON values for JSON bodies. */
  params: Record<string, unknown>;
  /** The same fields as Slack interprets them: JSON-encoded form fields decoded, "true"/"false" as booleans. */
  args: Record<string, unknown>;
  /** HTTP status this request was answered with. */
  status: number;
  /** Whether the answer was `ok: true`. */
  ok: boolean;
  /** The JSON body answered (for chat.postMessage: `ts` is the posted message's ts). */
  answer: Record<string, unknown>;
}

export interface ScriptedAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface SlackReceiver {
  /** Base URL for WebClient's slackApiUrl (ends with a slash). */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** chat.postMessage calls that were accepted. */
  posts(): RecordedRequest[];
  /** chat.update calls that were accepted. */
  updates(): RecordedRequest[];
  /** views.open calls that were accepted. */
  viewsOpened(): RecordedRequest[];
  /** Members usergroups.users.list answers for `groupId`. */
  setGroup(groupId: string, members: string[]): void;
  /** The thread of `rootTs` as it reads now: the root's latest blocks, then each reply's. */
  thread(rootTs: string): { root: Record<string, unknown>; replies: Record<string, unknown>[] };
  /** Answer the next call with HTTP 429 + Retry-After, as Slack does when rate limiting. */
  rateLimitNext(retryAfterSeconds?: number, times?: number): void;
  /** Answer the next call with `{ ok: false, error }` (HTTP 200, like Slack's API errors). */
  failNext(error: string, times?: number): void;
  /** Answer the next call with a bare HTTP error such as 503. */
  httpErrorNext(status: number, times?: number): void;
  close(): Promise<void>;
}

const JSON_FIELDS = new Set(["blocks", "attachments", "metadata", "view"]);
const TS_BASE = 1_714_557_600;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseParams(contentType: string, body: string): Record<string, unknown> {
  if (contentType.includes("application/json")) {
    const parsed: unknown = body ? JSON.parse(body) : {};
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? { ...parsed } : {};
  }
  return Object.fromEntries(new URLSearchParams(body));
}

function interpret(params: Record<string, unknown>, form: boolean): Record<string, unknown> {
  if (!form) return params;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    if (typeof value !== "string") out[key] = value;
    else if (value === "true" || value === "false") out[key] = value === "true";
    else if (JSON_FIELDS.has(key)) out[key] = JSON.parse(value);
    else out[key] = value;
  }
  return out;
}

function send(res: ServerResponse, answer: ScriptedAnswer): void {
  res.writeHead(answer.status, { "content-type": "application/json; charset=utf-8", ...answer.headers });
  res.end(JSON.stringify(answer.body));
}

/** A channel the workspace has, and whether the bot is in it (conversations.info's is_member). */
export interface StandInChannel {
  id: string;
  name: string;
  isMember: boolean;
  isPrivate?: boolean;
}

export interface SlackReceiverOptions {
  /** The one bot token accepted; any other is invalid_auth. */
  token?: string;
  /**
   * The workspace's channels. When given, conversations.info answers from them and
   * chat.postMessage refuses a channel the bot is not in (not_in_channel) or that does not exist
   * (channel_not_found), as Slack does; without it every channel is accepted.
   */
  channels?: StandInChannel[];
  /** The bot token's scopes. When given, a method needing another scope answers missing_scope. */
  scopes?: string[];
}

// The bot scopes Slack's method reference requires ("Required scopes" on
// https://docs.slack.dev/reference/methods/<method>); for conversations.info one of them,
// by the channel's kind.
const REQUIRED_SCOPES: Readonly<Record<string, readonly string[]>> = {
  "chat.postMessage": ["chat:write"],
  "chat.update": ["chat:write"],
  "usergroups.users.list": ["usergroups:read"],
  "conversations.info": ["channels:read", "groups:read"],
};

export async function startSlackReceiver(options: SlackReceiverOptions = {}): Promise<SlackReceiver> {
  const requests: RecordedRequest[] = [];
  const script: ScriptedAnswer[] = [];
  const groups = new Map<string, string[]>();
  let seq = 0;

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const contentType = req.headers["content-type"] ?? "";
    const method = (req.url ?? "/").replace(/^\/(api\/)?/, "").split("?")[0] ?? "";
    let params: Record<string, unknown>;
    try {
      params = parseParams(contentType, body);
    } catch {
      send(res, { status: 200, body: { ok: false, error: "invalid_json" } });
      return;
    }
    const form = !contentType.includes("application/json");
    const record: RecordedRequest = {
      method,
      authorization: req.headers.authorization,
      contentType,
      params,
      args: interpret(params, form),
      status: 200,
      ok: false,
      answer: {},
    };
    requests.push(record);

    const scripted = script.shift();
    const answer = scripted ?? answerFor(record);
    record.status = answer.status;
    record.ok = answer.body.ok === true;
    record.answer = answer.body;
    send(res, answer);
  });

  function answerFor(record: RecordedRequest): ScriptedAnswer {
    const bearer = record.authorization?.replace(/^Bearer\s+/i, "");
    const token = bearer ?? (typeof record.params.token === "string" ? record.params.token : undefined);
    if (!token) return { status: 200, body: { ok: false, error: "not_authed" } };
    if (options.token !== undefined && token !== options.token) {
      return { status: 200, body: { ok: false, error: "invalid_auth" } };
    }
    const channels = options.channels;
    const known = channels?.find((c) => c.id === record.args.channel);
    const needs = REQUIRED_SCOPES[record.method];
    if (options.scopes && needs) {
      // Slack's missing_scope answer names what the method needed and what the token has.
      const kind =
        record.method === "conversations.info" ? [known?.isPrivate ? "groups:read" : "channels:read"] : needs;
      if (!kind.every((scope) => options.scopes?.includes(scope)))
        return {
          status: 200,
          body: {
            ok: false,
            error: "missing_scope",
            needed: kind.join(","),
            provided: options.scopes.join(","),
          },
        };
    }
    if (record.method === "auth.test") {
      // https://docs.slack.dev/reference/methods/auth.test: who the token is.
      return {
        status: 200,
        body: {
          ok: true,
          url: "https://acme.slack.com/",
          team: "Acme",
          user: "ferret",
          team_id: "T0001",
          user_id: "U0FERRETBOT",
          bot_id: "B0FERRETBOT",
          is_enterprise_install: false,
        },
      };
    }
    if (record.method === "conversations.info") {
      if (!channels)
        return { status: 200, body: { ok: true, channel: { id: record.args.channel, is_member: true } } };
      if (!known) return { status: 200, body: { ok: false, error: "channel_not_found" } };
      return {
        status: 200,
        body: {
          ok: true,
          channel: {
            id: known.id,
            name: known.name,
            is_channel: !known.isPrivate,
            is_group: false,
            is_im: false,
            is_private: Boolean(known.isPrivate),
            is_archived: false,
            is_member: known.isMember,
          },
        },
      };
    }
    if (record.method === "chat.postMessage" && channels) {
      if (!known) return { status: 200, body: { ok: false, error: "channel_not_found" } };
      if (!known.isMember) return { status: 200, body: { ok: false, error: "not_in_channel" } };
    }
    if (record.method === "chat.update") {
      const ts = record.args.ts;
      const known = requests.some((r) => r.method === "chat.postMessage" && r.ok && r.answer.ts === ts);
      if (!known) return { status: 200, body: { ok: false, error: "message_not_found" } };
      return { status: 200, body: { ok: true, channel: record.args.channel, ts, text: record.args.text } };
    }
    if (record.method === "views.open") {
      if (typeof record.args.trigger_id !== "string") {
        return { status: 200, body: { ok: false, error: "invalid_trigger" } };
      }
      return { status: 200, body: { ok: true, view: { id: `V${String(seq).padStart(8, "0")}` } } };
    }
    if (record.method === "usergroups.users.list") {
      const members = groups.get(String(record.args.usergroup));
      if (!members) return { status: 200, body: { ok: false, error: "no_such_subteam" } };
      return { status: 200, body: { ok: true, users: members } };
    }
    if (record.method !== "chat.postMessage") return { status: 200, body: { ok: true } };
    const channel = record.args.channel;
    if (typeof channel !== "string" || channel.length === 0) {
      return { status: 200, body: { ok: false, error: "channel_not_found" } };
    }
    seq += 1;
    const ts = `${TS_BASE + seq}.${String(seq * 100).padStart(6, "0")}`;
    const threadTs = record.args.thread_ts;
    return {
      status: 200,
      body: {
        ok: true,
        channel,
        ts,
        message: {
          type: "message",
          text: record.args.text,
          ts,
          ...(threadTs ? { thread_ts: threadTs } : {}),
        },
      },
    };
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const repeat = (answer: ScriptedAnswer, times: number) => {
    for (let i = 0; i < times; i += 1) script.push(answer);
  };

  return {
    url: `http://127.0.0.1:${port}/api/`,
    requests,
    posts: () => requests.filter((r) => r.method === "chat.postMessage" && r.ok),
    updates: () => requests.filter((r) => r.method === "chat.update" && r.ok),
    viewsOpened: () => requests.filter((r) => r.method === "views.open" && r.ok),
    setGroup: (groupId, members) => {
      groups.set(groupId, members);
    },
    thread: (rootTs) => {
      const posted = requests.filter((r) => r.method === "chat.postMessage" && r.ok);
      const root = posted.find((r) => r.answer.ts === rootTs);
      if (!root) throw new Error(`no message ${rootTs}`);
      const edits = requests.filter((r) => r.method === "chat.update" && r.ok && r.args.ts === rootTs);
      return {
        root: (edits.at(-1) ?? root).args,
        replies: posted.filter((r) => r.args.thread_ts === rootTs).map((r) => r.args),
      };
    },
    rateLimitNext: (retryAfterSeconds = 1, times = 1) =>
      repeat(
        {
          status: 429,
          headers: { "retry-after": String(retryAfterSeconds) },
          body: { ok: false, error: "ratelimited" },
        },
        times,
      ),
    failNext: (error, times = 1) => repeat({ status: 200, body: { ok: false, error } }, times),
    httpErrorNext: (status, times = 1) =>
      repeat({ status, body: { ok: false, error: `http_${status}` } }, times),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

import type {
  AuditEvidence,
  DeniedAllowedEvidence,
  FlowEvidence,
  HistoryEvidence,
  HttpRequestEvidence,
} from "../evidence/types.js";
import type { Subject } from "../subject.js";
import { workloadOwners } from "../workload-owners.js";
import type { EvidenceIndex, Located } from "./evidence-index.js";

/**
 * Typed facts analysts read across categories (issue 30, item 2), derived from the evidence
 * index. Each is either a sign the finding is real or one independent benign signal; none
 * is built from an absence.
 */

/** Traffic between the workload and one of the finding's own addresses. */
export interface IocContact {
  ip: string;
  records: number;
  sessions: number;
  bytes: number;
  first?: string;
  last?: string;
  durationS: number;
  /** Enough to be a conversation, not a stray packet: several records and MBs, minutes or sessions. */
  sustained: boolean;
  items: Located<FlowEvidence>[];
}

const MIB = 1024 * 1024;

export function iocContacts(subject: Subject, index: EvidenceIndex): IocContact[] {
  const own = new Set(subject.iocIps.filter((ip) => ip !== subject.callerIp));
  const byIp = new Map<string, Located<FlowEvidence>[]>();
  for (const f of index.of("flow"))
    if (own.has(f.evidence.remoteIp))
      byIp.set(f.evidence.remoteIp, [...(byIp.get(f.evidence.remoteIp) ?? []), f]);
  return [...byIp.entries()].map(([ip, items]) => {
    // Several steps may see the same flows: take the step that saw the most.
    const perStep = new Map<string, Located<FlowEvidence>[]>();
    for (const i of items) perStep.set(i.stepId, [...(perStep.get(i.stepId) ?? []), i]);
    const best =
      [...perStep.values()].sort(
        (a, b) => b.reduce((n, i) => n + i.evidence.count, 0) - a.reduce((n, i) => n + i.evidence.count, 0),
      )[0] ?? [];
    const records = best.reduce((n, i) => n + i.evidence.count, 0);
    const sessions = best.reduce((n, i) => n + (i.evidence.sessions ?? 1), 0);
    const bytes = best.reduce((n, i) => n + (i.evidence.bytes ?? 0), 0);
    const first = best
      .map((i) => i.evidence.first)
      .filter((t): t is string => Boolean(t))
      .sort()[0];
    const last = best
      .map((i) => i.evidence.last)
      .filter((t): t is string => Boolean(t))
      .sort()
      .at(-1);
    const durationS = first && last ? Math.max(0, (Date.parse(last) - Date.parse(first)) / 1000) : 0;
    const sustained = records >= 3 && (bytes >= MIB || durationS >= 600 || sessions >= 2);
    return {
      ip,
      records,
      sessions,
      bytes,
      ...(first ? { first } : {}),
      ...(last ? { last } : {}),
      durationS,
      sustained,
      items: best,
    };
  });
}

/** A caller a control denied and later allowed; `aroundChange` when the turn came at the finding's time. */
export interface DeniedThenAllowed {
  item: Located<DeniedAllowedEvidence>;
  aroundChange: boolean;
}

const CHANGE_SLACK_MS = 10 * 60_000;

export function deniedThenAllowed(subject: Subject, index: EvidenceIndex): DeniedThenAllowed[] {
  const at = Date.parse(subject.eventTime);
  return (
    index
      .of("denied_allowed")
      .filter((d) => d.evidence.denied > 0 && d.evidence.firstAllowedAfter)
      // The finding's own principal retrying is not someone let through by the change.
      .filter((d) => d.evidence.principal !== subject.principal)
      .map((item) => {
        const lastDenied = Date.parse(item.evidence.lastDenied ?? "");
        const firstAllowed = Date.parse(item.evidence.firstAllowedAfter ?? "");
        const aroundChange =
          Number.isFinite(lastDenied) &&
          Number.isFinite(firstAllowed) &&
          lastDenied <= at + CHANGE_SLACK_MS &&
          firstAllowed >= at - CHANGE_SLACK_MS;
        return { item, aroundChange };
      })
  );
}

/** What the principal's history says about the calls in the finding's window. */
export interface HistoryReading {
  principal: string;
  /** The principal has calls before the window at all: without history nothing is first-seen. */
  hasHistory: boolean;
  /** Addresses and networks in the window that the look-back never showed; user agents the new addresses used that it never showed. */
  newAddresses: string[];
  newAgents: string[];
  newNetworks: string[];
  /** The window's calls from an address the principal used on earlier days. */
  knownAddresses: string[];
  /** Access levels the window's calls satisfied that name a managed or corporate device. */
  managedDevice: string[];
  /** Methods called in the window that the principal also called on at least 3 earlier days. */
  recurring: { method: string; days: number }[];
  /** History calls lacked in the window: the habit had a managed-device level, the new calls do not. */
  lostDeviceLevel: boolean;
  items: Located<HistoryEvidence>[];
}

/** Access level names an organization gives to device posture; chosen by its admins, not by a caller. */
const MANAGED_LEVEL = /managed|corp(orate)?[_-]?device|compliant|company[_-]?owned|trusted[_-]?device/i;
const RECURRING_DAYS = 3;

/**
 * A method with its write verb folded: applying an object creates it the first time and
 * patches it after (io.k8s.apps.v1.daemonsets.create ≡ ….patch; Compute Engine's create verb is
 * insert: v1.compute.firewalls.insert ≡ ….patch), so a habit of applying the same kind of object
 * is one habit. Reads and other verbs stay as they are.
 */
function habitOf(method: string): string {
  return method.replace(/\.(create|insert|patch|update|replace|apply)$/i, ".write");
}

/** Methods that read: they change nothing, so their caller is not the one who made a change. */
const READ_METHOD = /(^|\.)(get|list|search|lookup|test)[A-Za-z]*$/i;

/** The author of the change a finding reports, and the addresses the change itself came from. */
export interface Changer {
  principal: string;
  addresses: string[];
  items: Located<AuditEvidence>[];
}

/**
 * Who made the change a finding reports when it names no principal (a posture finding names a
 * state, not an actor): the author of a write on the finding's own resource, the resource
 * itself and not something under it. With no write on the resource itself, the one principal
 * that wrote under it, if only one did.
 */
export function changerOf(subject: Subject, index: EvidenceIndex): Changer | undefined {
  const target = subject.auditResource.toLowerCase();
  // A workload's controller (its Deployment, DaemonSet, …) is the workload's own resource: a
  // rollout of it is a change to the workload. Matched by whole trailing segments, never by
  // substring, so payments-api is not payments-api-db.
  const owners = workloadOwners(subject.details).map((o) => o.toLowerCase());
  const isOwn = (resource: string) =>
    [target, ...owners].some((t) => resource === t || resource.endsWith(`/${t}`));
  const writes = index.of("audit").filter((a) => {
    const resource = (a.evidence.resource ?? "").toLowerCase();
    return (
      a.evidence.principal &&
      !READ_METHOD.test(a.evidence.method) &&
      (resource.includes(target) || isOwn(resource))
    );
  });
  const own = writes.filter((a) => isOwn((a.evidence.resource ?? "").toLowerCase()));
  const authors = (list: typeof writes) => [...new Set(list.map((a) => a.evidence.principal ?? ""))];
  const under = authors(writes);
  // A change to what is logged on the resource speaks first: it is what makes later absence evidence.
  const loggingAuthors = authors(own.filter((a) => (a.evidence.logging ?? []).length > 0));
  const principal = loggingAuthors[0] ?? authors(own)[0] ?? (under.length === 1 ? under[0] : undefined);
  if (!principal) return undefined;
  const items = writes.filter(
    (a) =>
      a.evidence.principal === principal &&
      (loggingAuthors.length === 0 || (a.evidence.logging ?? []).length > 0),
  );
  const addresses = items.map((a) => a.evidence.callerIp).filter((ip): ip is string => Boolean(ip));
  return { principal, addresses: [...new Set(addresses)], items };
}

export function historyOf(subject: Subject, index: EvidenceIndex): HistoryReading | undefined {
  // Without a principal of its own, the finding's change speaks through its author, and only the
  // change's own origin is weighed: the author's other work in the window is not the finding.
  const changer = subject.principal ? undefined : changerOf(subject, index);
  const principal = (subject.principal ?? changer?.principal)?.toLowerCase();
  if (!principal) return undefined;
  const items = index
    .of("history")
    .filter((h) => (h.evidence.principal ?? principal).toLowerCase() === principal);
  if (items.length === 0) return undefined;
  const rows = items.map((i) => i.evidence);
  const before = rows.filter((r) => r.daysBefore > 0);
  const recent = rows.filter(
    (r) => r.callsRecent > 0 && (!changer || changer.addresses.includes(r.callerIp ?? "")),
  );
  const seen = (pick: (r: HistoryEvidence) => string | undefined) =>
    new Set(before.map(pick).filter((v): v is string => Boolean(v)));
  const addresses = seen((r) => r.callerIp);
  const agents = seen((r) => r.userAgent);
  const networks = seen((r) => r.network);
  const fresh = (pick: (r: HistoryEvidence) => string | undefined, known: Set<string>) => [
    ...new Set(recent.map(pick).filter((v): v is string => Boolean(v) && !known.has(v as string))),
  ];
  const recurring = new Map<string, number>();
  for (const r of recent)
    if (r.method) {
      const days = Math.max(
        0,
        ...before
          .filter((b) => b.method && habitOf(b.method) === habitOf(r.method ?? ""))
          .map((b) => b.daysBefore),
      );
      if (days >= RECURRING_DAYS) recurring.set(r.method, Math.max(days, recurring.get(r.method) ?? 0));
    }
  const historyManaged = before.some((r) => r.accessLevels.some((l) => MANAGED_LEVEL.test(l)));
  const recentManaged = [
    ...new Set(recent.flatMap((r) => r.accessLevels.filter((l) => MANAGED_LEVEL.test(l)))),
  ];
  const newAddresses = before.length > 0 ? fresh((r) => r.callerIp, addresses) : [];
  // A new client counts where the new address is: the same calls, not the principal's other work.
  const fromNew = recent.filter((r) => r.callerIp && newAddresses.includes(r.callerIp));
  return {
    principal: subject.principal ?? items[0]?.evidence.principal ?? principal,
    hasHistory: before.length > 0,
    newAddresses,
    newAgents:
      before.length > 0
        ? [
            ...new Set(
              fromNew
                .map((r) => r.userAgent)
                .filter((v): v is string => Boolean(v) && !agents.has(v as string)),
            ),
          ]
        : [],
    newNetworks: before.length > 0 ? fresh((r) => r.network, networks) : [],
    knownAddresses: [
      ...new Set(
        recent.map((r) => r.callerIp).filter((v): v is string => Boolean(v) && addresses.has(v as string)),
      ),
    ],
    managedDevice: recentManaged,
    recurring: [...recurring.entries()].map(([method, days]) => ({ method, days })),
    lostDeviceLevel:
      historyManaged && fromNew.some((r) => !r.accessLevels.some((l) => MANAGED_LEVEL.test(l))),
    items,
  };
}

/** The history items behind a reading's claim, for key findings. */
export function historyItems(
  reading: HistoryReading,
  pick: (h: HistoryEvidence) => boolean,
): Located<HistoryEvidence>[] {
  return reading.items.filter((i) => pick(i.evidence));
}

/** A web client the front end refused every time: no request from it reached a backend. */
export interface BlockedProbe {
  ip: string;
  refused: number;
  items: Located<HttpRequestEvidence>[];
}

function refused(e: HttpRequestEvidence): boolean {
  return (
    /deny/i.test(e.outcome ?? "") ||
    /denied_by_security_policy/i.test(e.statusDetails ?? "") ||
    e.status === 403
  );
}

export function blockedProbes(subject: Subject, index: EvidenceIndex): BlockedProbe[] {
  const own = new Set(subject.iocIps);
  const byIp = new Map<string, Located<HttpRequestEvidence>[]>();
  for (const h of index.of("http_request")) {
    const ip = h.evidence.remoteIp;
    if (ip && own.has(ip)) byIp.set(ip, [...(byIp.get(ip) ?? []), h]);
  }
  return [...byIp.entries()]
    .filter(([, items]) => items.every((i) => refused(i.evidence)))
    .map(([ip, items]) => ({ ip, refused: Math.max(...items.map((i) => i.evidence.count)), items }));
}

/** Web clients of the finding that got through to a backend (not refused). */
export function passedRequests(subject: Subject, index: EvidenceIndex): Located<HttpRequestEvidence>[] {
  const own = new Set(subject.iocIps);
  return index
    .of("http_request")
    .filter((h) => h.evidence.remoteIp && own.has(h.evidence.remoteIp) && !refused(h.evidence));
}

/** What members the finding says were granted or added did afterwards. */
export interface FollowUp {
  member: string;
  methods: string[];
  calls: number;
  items: Located[];
}

/** Methods that use a new foothold: keys, grants, data reads and exports, compute changes. */
const FOOTHOLD =
  /ServiceAccountKey|SetIamPolicy|objects\.get|objects\.list|buckets\.list|export|extract|\.insert|InsertJob|GenerateAccessToken|SignBlob|instances\.(insert|setMetadata)|CreateRole/i;

export function followUps(subject: Subject, index: EvidenceIndex): FollowUp[] {
  const at = Date.parse(subject.eventTime) - 5 * 60_000;
  const members = new Set(
    subject.granted.map((g) => g.member.toLowerCase()).filter((m) => m !== subject.principal?.toLowerCase()),
  );
  const out = new Map<string, FollowUp>();
  for (const item of [...index.of("audit"), ...index.of("object_read")]) {
    const who = item.evidence.principal?.toLowerCase();
    if (!who || !members.has(who)) continue;
    const when = Date.parse(item.evidence.first ?? item.evidence.last ?? "");
    if (Number.isFinite(when) && when < at) continue;
    if (!FOOTHOLD.test(item.evidence.method)) continue;
    const seen = out.get(who) ?? { member: who, methods: [], calls: 0, items: [] };
    seen.methods = [...new Set([...seen.methods, item.evidence.method])];
    seen.calls += item.evidence.count;
    seen.items.push(item);
    out.set(who, seen);
  }
  return [...out.values()];
}

/** IPs among the finding's own that intel calls benign (a research scanner, a sinkhole). */
export function benignIntel(subject: Subject, index: EvidenceIndex) {
  return subject.iocIps
    .map((ip) => index.intelFor(ip))
    .filter((i): i is NonNullable<typeof i> => i?.evidence.verdict === "benign");
}

import { catalogEntryFor } from "../../../domain/category-catalog.js";
import { SEVERITY_RANK, type Severity } from "../../../domain/finding/finding.js";
import type { Ioc } from "../../../domain/ioc.js";
import { humanBytes } from "../../evidence/facts.js";
import { isBad } from "../../evidence/intel.js";
import type { Subject } from "../../subject.js";
import {
  confidenceFrom,
  type Decision,
  dropAbsent,
  type KeyFinding,
  keyFinding,
  type Mitre,
  sumCount,
} from "../decision.js";
import type { EvidenceIndex } from "../evidence-index.js";
import {
  benignIntel,
  blockedProbes,
  changerOf,
  deniedThenAllowed,
  followUps,
  historyItems,
  historyOf,
  iocContacts,
  passedRequests,
} from "../signals.js";

/**
 * Verdict rules for categories without rules of their own (runtime, admin_change,
 * exfiltration, posture, generic), from the evidence analysts read across categories:
 *
 * true_positive when any of
 * - threat intel marks one of the finding's own indicators malicious (0.72; 0.8 with contact);
 * - the workload held sustained traffic with one of the finding's own addresses (several flow
 *   records and MBs, minutes or sessions) — the contact the detector reported, seen in the logs (0.8);
 * - a caller was denied (IAM, a perimeter) and then allowed right after the finding's change (0.82);
 * - a member the finding says was added or granted used the foothold (keys, grants, data reads) (0.84);
 * - the principal acted from an address its history never shows and with a new client or
 *   without the managed-device level its history has (0.76); for a finding that names no
 *   principal, the author of the change on its resource, weighed by the change's own origin;
 * - the finding's caller address also logged in to a host (sshd accepted it) (0.8);
 * each further sign adds 0.04.
 *
 * benign when nothing above holds, no request of the finding's clients passed the front end,
 * and at least two independent benign signals agree: the principal's address on earlier days
 * (history), a managed-device access level on the calls (the request), the same method on
 * three or more earlier days (the habit), every request of the finding's client refused at the
 * edge (the load balancer log), threat intel calling the finding's address benign (intel).
 *
 * inconclusive otherwise, with what was missing.
 */
/** How close to the change the last logged entry must be, and how long before it entries began. */
const LOGS_STOP_MS = 15 * 60_000;

export function crossCategoryRules(subject: Subject, index: EvidenceIndex): Decision {
  const indicators = [...subject.iocIps, ...subject.domains, ...subject.hashes];
  const intel = dropAbsent(indicators.map((v) => index.intelFor(v)));
  const bad = intel.filter((i) => isBad(i.evidence));
  const contacts = iocContacts(subject, index);
  const sustained = contacts.filter((c) => c.sustained);
  const turned = deniedThenAllowed(subject, index).filter((d) => d.aroundChange);
  const follow = followUps(subject, index);
  const history = historyOf(subject, index);
  const novel =
    history?.hasHistory === true &&
    history.newAddresses.length > 0 &&
    (history.newAgents.length > 0 || history.lostDeviceLevel);
  const change = subject.principal ? undefined : changerOf(subject, index);
  // The address that made the finding's call also logged in to a host: an API change, then its use.
  const callerLogins = subject.callerIp
    ? index
        .of("auth")
        .filter((a) => a.evidence.outcome === "accepted" && a.evidence.sourceIp === subject.callerIp)
    : [];
  const probes = blockedProbes(subject, index);
  const passed = passedRequests(subject, index);
  const kindIntel = benignIntel(subject, index);

  const contactFinding = (list: typeof contacts) =>
    keyFinding(
      `Traffic with the finding's own address${list.length > 1 ? "es" : ""}: ${list
        .map(
          (c) =>
            `${c.ip} — ${c.records} flow record(s), ${c.sessions} session(s), ${humanBytes(c.bytes)}${c.durationS >= 60 ? ` over ${Math.round(c.durationS / 60)} min` : ""}${c.first ? ` from ${c.first}` : ""}`,
        )
        .join("; ")}.`,
      list.flatMap((c) => c.items),
    );
  const intelFinding = keyFinding(
    `Threat intel: ${intel.map((i) => `${i.evidence.value} ${i.evidence.verdict}${i.evidence.tags.length ? ` (${i.evidence.tags.slice(0, 3).join(", ")})` : ""}`).join("; ")}.`,
    intel,
  );
  const turnedFinding = keyFinding(
    `Denied, then allowed at the change: ${turned
      .map(
        (d) =>
          `${d.item.evidence.principal ?? "a caller"}${d.item.evidence.callerIp ? ` from ${d.item.evidence.callerIp}` : ""} — ${d.item.evidence.denied} denied (last ${d.item.evidence.lastDenied ?? "?"}), then ${d.item.evidence.allowed} allowed from ${d.item.evidence.firstAllowedAfter ?? "?"}`,
      )
      .join("; ")}.`,
    turned.map((d) => d.item),
  );
  const followFinding = keyFinding(
    `What the added principal did next: ${follow.map((f) => `${f.member} — ${f.calls} call(s): ${f.methods.slice(0, 4).join(", ")}`).join("; ")}.`,
    follow.flatMap((f) => f.items),
  );
  const novelFinding =
    history &&
    keyFinding(
      `${history.principal} acted from ${[...history.newAddresses, ...history.newAgents.map((a) => `user agent "${a.slice(0, 60)}"`)].join(", ")}, first seen in the window against a look-back that shows ${[...new Set(history.items.filter((h) => h.evidence.daysBefore > 0).map((h) => h.evidence.callerIp ?? "?"))].slice(0, 4).join(", ")}${history.lostDeviceLevel ? "; the earlier calls carried a managed-device access level, these do not" : ""}.`,
      historyItems(history, (h) => h.callsRecent > 0 && h.daysBefore === 0)
        .slice(0, 3)
        .concat(historyItems(history, (h) => h.daysBefore > 0).slice(0, 2)),
    );

  const tickets = [...new Set(change?.items.flatMap((i) => i.evidence.tickets) ?? [])];
  const changeFinding =
    change &&
    keyFinding(
      `The change on ${subject.auditResource}: ${[...new Set(change.items.map((i) => i.evidence.method))].slice(0, 3).join(", ")} by ${change.principal}${change.addresses.length ? ` from ${change.addresses.slice(0, 3).join(", ")}` : ""}${tickets.length ? `, citing ${tickets.join(", ")}` : ""}.`,
      change.items.slice(0, 3),
    );
  const loginFinding = keyFinding(
    `The caller's address ${subject.callerIp ?? ""} also logged in to a host: ${callerLogins
      .slice(0, 3)
      .map(
        (a) =>
          `${a.evidence.user ?? "a user"} on ${a.evidence.host ?? "a VM"}${a.evidence.first ? ` at ${a.evidence.first}` : ""}`,
      )
      .join("; ")} (Accepted publickey / password).`,
    callerLogins,
  );
  // Where logging stopped: a bucket read steadily whose data-access entries end at the change.
  const changedAt = Math.min(...(change?.items.map((i) => Date.parse(i.evidence.first ?? "")) ?? []));
  const stopped = Number.isFinite(changedAt)
    ? index
        .of("object_read")
        .filter(
          (o) =>
            o.evidence.bucket &&
            Math.abs(Date.parse(o.evidence.last ?? "") - changedAt) <= LOGS_STOP_MS &&
            Date.parse(o.evidence.first ?? "") < changedAt - LOGS_STOP_MS,
        )
    : [];
  const stoppedFinding = keyFinding(
    `Data-access logs stop at the change: ${[...new Set(stopped.map((o) => o.evidence.bucket))]
      .slice(0, 3)
      .map((b) => {
        const rows = stopped.filter((o) => o.evidence.bucket === b);
        return `${b} — ${sumCount(rows)} entries from ${rows.map((o) => o.evidence.first).sort()[0]}, the last at ${rows
          .map((o) => o.evidence.last)
          .sort()
          .at(-1)}`;
      })
      .join("; ")}; nothing is logged for it after the change.`,
    stopped,
  );
  const signs: { finding?: KeyFinding; base: number }[] = [
    ...(bad.length > 0 ? [{ finding: intelFinding, base: sustained.length > 0 ? 0.8 : 0.72 }] : []),
    ...(sustained.length > 0 ? [{ finding: contactFinding(sustained), base: 0.8 }] : []),
    ...(turned.length > 0 ? [{ finding: turnedFinding, base: 0.82 }] : []),
    ...(follow.length > 0 ? [{ finding: followFinding, base: 0.84 }] : []),
    ...(novel ? [{ finding: novelFinding, base: 0.76 }] : []),
    ...(callerLogins.length > 0 ? [{ finding: loginFinding, base: 0.8 }] : []),
  ];
  const iocs: Ioc[] = [
    ...bad.map((b) => ({
      type: b.evidence.type,
      value: b.evidence.value,
      context: `threat intel: ${b.evidence.verdict}`,
    })),
    ...sustained.map(
      (c): Ioc => ({
        type: "ip",
        value: c.ip,
        context: `${c.sessions} session(s), ${humanBytes(c.bytes)} with the workload`,
      }),
    ),
    ...turned.flatMap((d): Ioc[] => [
      ...(d.item.evidence.principal
        ? [
            {
              type: "principal" as const,
              value: d.item.evidence.principal,
              context: "denied, then allowed after the change",
            },
          ]
        : []),
      ...(d.item.evidence.callerIp
        ? [
            {
              type: "ip" as const,
              value: d.item.evidence.callerIp,
              context: "denied, then allowed after the change",
            },
          ]
        : []),
    ]),
    ...follow.map(
      (f): Ioc => ({
        type: "principal",
        value: f.member,
        context: `added, then ${f.methods.slice(0, 2).join(", ")}`,
      }),
    ),
    ...(novel && history
      ? history.newAddresses.map(
          (a): Ioc => ({ type: "ip", value: a, context: `first-seen address of ${history.principal}` }),
        )
      : []),
  ];

  if (signs.length > 0) {
    const base = Math.max(...signs.map((s) => s.base));
    return {
      verdict: "true_positive",
      confidence: confidenceFrom(base, signs.length - 1),
      severity: atLeast(subject.severity, "HIGH"),
      rule: `Rule: ${signs.length} sign(s) that the finding is real (${[
        bad.length > 0 ? "malicious intel on its indicators" : "",
        sustained.length > 0 ? "sustained traffic with its own addresses" : "",
        turned.length > 0 ? "a caller denied then allowed at the change" : "",
        follow.length > 0 ? "the added principal used the foothold" : "",
        novel ? "a first-seen address and client against the principal's history" : "",
        callerLogins.length > 0 ? "the caller's address logged in to a host" : "",
      ]
        .filter(Boolean)
        .join(", ")}) → true_positive.`,
      findings: dropAbsent([changeFinding, ...signs.map((s) => s.finding), stoppedFinding]),
      iocs,
      mitre: mitreOf(subject),
      actions: [
        {
          action: `Contain ${subject.instance ?? subject.auditResource}: revoke what the evidence shows was used (${[...new Set(iocs.map((i) => i.value))].slice(0, 4).join(", ") || "the principal's access"}).`,
          priority: "immediate",
        },
        {
          action:
            "Scope the incident from the evidence listed: the same principal, address or workload elsewhere.",
          priority: "soon",
        },
      ],
      openQuestions: [`What else did the actor behind "${subject.category}" reach beyond these records?`],
    };
  }

  const benign: { name: string; finding?: KeyFinding }[] = [];
  if (history && history.knownAddresses.length > 0)
    benign.push({
      name: "history: known address",
      finding: keyFinding(
        `${history.principal} used ${history.knownAddresses.join(", ")} on earlier days too: the look-back shows it first at ${earliest(history)}.`,
        historyItems(
          history,
          (h) => h.daysBefore > 0 && history.knownAddresses.includes(h.callerIp ?? ""),
        ).slice(0, 3),
      ),
    });
  if (history && history.managedDevice.length > 0)
    benign.push({
      name: "request: managed device",
      finding: keyFinding(
        `The calls in the window satisfied the access level ${history.managedDevice.join(", ")} (a managed device).`,
        historyItems(history, (h) => h.callsRecent > 0 && h.accessLevels.length > 0).slice(0, 2),
      ),
    });
  if (history && history.recurring.length > 0)
    benign.push({
      name: "habit: recurring method",
      finding: keyFinding(
        `${history.principal} made the same call on many earlier days: ${history.recurring.map((r) => `${r.method} on ${r.days} earlier day(s)`).join(", ")}, first at ${earliest(history)}.`,
        historyItems(history, (h) => h.daysBefore >= 3).slice(0, 3),
      ),
    });
  if (probes.length > 0)
    benign.push({
      name: "edge: probe refused",
      finding: keyFinding(
        `The front end refused every request of ${probes.map((p) => `${p.ip} (${p.refused} request(s))`).join(", ")}; none reached a backend.`,
        probes.flatMap((p) => p.items),
      ),
    });
  if (kindIntel.length > 0)
    benign.push({
      name: "intel: benign source",
      finding: keyFinding(
        `Threat intel calls ${kindIntel.map((i) => `${i.evidence.value} benign${i.evidence.tags.length ? ` (${i.evidence.tags.slice(0, 3).join(", ")})` : ""}`).join("; ")}.`,
        kindIntel,
      ),
    });
  const context = dropAbsent([
    changeFinding,
    stoppedFinding,
    contacts.length > 0 ? contactFinding(contacts) : undefined,
    intel.length > 0 && kindIntel.length === 0 ? intelFinding : undefined,
  ]);
  // A client that got through the front end, or contact with the finding's address, is not a blocked probe.
  const contrary = passed.length > 0 || contacts.length > 0;
  if (benign.length >= 2 && !contrary) {
    return {
      verdict: "benign",
      confidence: confidenceFrom(0.72, benign.length - 2, 0.9),
      severity: "LOW",
      rule: `Rule: no sign the finding is real, and ${benign.length} independent benign signals agree (${benign.map((b) => b.name).join("; ")}) → benign.`,
      signals: benign.map((b) => b.name),
      findings: [...dropAbsent(benign.map((b) => b.finding)), ...context],
      iocs: [],
      mitre: [],
      actions: [
        {
          action: `Confirm with the owner of ${history?.principal ?? subject.auditResource} that this was expected, then mute or tune the detector for it.`,
          priority: "soon",
        },
      ],
      openQuestions: [],
    };
  }
  return {
    verdict: "inconclusive",
    confidence: benign.length > 0 ? 0.4 : 0.3,
    severity: subject.severity,
    rule: `Rule: no sign the finding is real in the logs and ${benign.length < 2 ? `${benign.length} benign signal(s), fewer than the two a dismissal needs` : "a contrary sign (a request that passed the front end, or contact with the finding's address)"} → inconclusive; the detector's own evidence stands.`,
    findings: [...dropAbsent(benign.map((b) => b.finding)), ...context],
    iocs: [],
    mitre: [],
    actions: [
      {
        action: `Review "${subject.category}" on ${subject.instance ?? subject.auditResource} by hand: the logs neither confirm nor clear it.`,
        priority: "soon",
      },
    ],
    openQuestions: [`Is the activity behind "${subject.category}" expected for ${subject.auditResource}?`],
  };
}

function earliest(history: NonNullable<ReturnType<typeof historyOf>>): string {
  return (
    history.items
      .filter((h) => h.evidence.daysBefore > 0)
      .map((h) => h.evidence.first)
      .filter((t): t is string => Boolean(t))
      .sort()[0] ?? "an earlier day"
  );
}

function atLeast(a: Severity | undefined, floor: Severity): Severity {
  if (!a || a === "SEVERITY_UNSPECIFIED") return floor;
  return SEVERITY_RANK[a] >= SEVERITY_RANK[floor] ? a : floor;
}

/** ATT&CK techniques: the detector's own mapping on the finding first, then the catalog's for the category. */
function mitreOf(subject: Subject): Mitre[] {
  const ids = [...new Set([...subject.techniques, ...(catalogEntryFor(subject.category)?.mitre ?? [])])];
  return ids.slice(0, 6).map((techniqueId) => ({
    tactic: subject.techniques.includes(techniqueId) ? "the detector's mapping" : "the category's mapping",
    techniqueId,
  }));
}

import { identifiersOf } from "../../domain/log-identifiers.js";
import { lookBackStart, type Subject } from "../subject.js";
import { intelStep, paramIfPresent, type StepSpec, windowParams } from "./types.js";

/**
 * The checks analysts run across categories (issue 30), each one step with one runbook:
 * traffic to and from the finding's own IOCs, a principal's history, what a new principal did
 * next, denied-then-allowed calls, and the load balancer's verdict on a web probe. Families
 * pick the ones their category needs; each returns undefined when the finding gives it no value.
 */

/** The finding's own IPs other than the API caller's (whose flows are not the workload's). */
export function workloadIocIps(subject: Subject): string[] {
  return subject.iocIps.filter((ip) => ip !== subject.callerIp).slice(0, 4);
}

export function iocTrafficStep(subject: Subject, id = "ioc-traffic"): StepSpec | undefined {
  const ips = workloadIocIps(subject);
  if (ips.length === 0) return undefined;
  return {
    id,
    intent: { kind: "flows", params: { ips, ...windowParams(subject.window) } },
    expected:
      "Sessions, bytes and duration between the workload and the finding's own addresses: sustained traffic confirms the contact the detector saw; none in a covered window means it never happened.",
  };
}

export function historyStep(subject: Subject, principal = subject.principal): StepSpec | undefined {
  if (!principal) return undefined;
  return {
    id: "principal-history",
    intent: {
      kind: "principal_history",
      params: {
        principal: [principal],
        recent: [subject.window.start],
        start: [lookBackStart(subject.window.start)],
        end: [subject.window.end],
      },
    },
    expected:
      "Whether the address, network, user agent and access level of the finding's calls appear in the principal's history, and whether it repeats the same method on many days.",
  };
}

/** What the granted or added members did after the change (the new principal's next moves). */
export function followUpStep(subject: Subject): StepSpec | undefined {
  const members = subject.granted.map((g) => g.member).filter((m) => m !== subject.principal);
  if (members.length === 0) return undefined;
  const from = new Date(Date.parse(subject.eventTime) - 5 * 60_000).toISOString().replace(/\.\d{3}Z$/, "Z");
  return {
    id: "new-principal-next",
    intent: {
      kind: "principal_activity",
      params: { principal: members.slice(0, 3), start: [from], end: [subject.window.end] },
    },
    expected:
      "What the newly added principal did after the change: key creation, data reads or further grants confirm abuse; nothing in a covered window is no use yet.",
  };
}

/** Calls denied and later allowed: a control that stopped someone and then let them through. */
export function deniedAllowedStep(subject: Subject): StepSpec {
  return {
    id: "denied-then-allowed",
    intent: { kind: "denied_allowed", params: windowParams(subject.window) },
    expected:
      "Callers denied by IAM or a perimeter before the change and allowed right after it: the change opened the door for them.",
  };
}

/** The front end's verdict on the finding's web clients (a probe refused at the edge, or one that got through). */
export function lbStep(subject: Subject): StepSpec | undefined {
  const backends = identifiersOf(subject.ids, "backend_service");
  const fronted = backends.length > 0 || Object.hasOwn(subject.details, "loadBalancers");
  if (!fronted) return undefined;
  const ips = subject.iocIps.slice(0, 3);
  if (ips.length === 0 && backends.length === 0) return undefined;
  return {
    id: "edge-requests",
    intent: {
      kind: "lb_requests",
      params: {
        ...(ips.length ? { ips } : paramIfPresent("backend", backends)),
        ...windowParams(subject.window),
      },
    },
    expected:
      "Whether the load balancer and Cloud Armor refused the requests (403, denied_by_security_policy) or passed them to a backend.",
  };
}

export function intelIocsStep(subject: Subject): StepSpec | undefined {
  return intelStep(
    "intel-iocs",
    subject,
    "A malicious verdict on any of the finding's indicators confirms it; a benign one (a known scanner, a sinkhole) is context for a dismissal.",
    { ips: subject.iocIps.slice(0, 10), domains: subject.domains, hashes: subject.hashes },
  );
}

export function callerIntelStep(subject: Subject): StepSpec | undefined {
  if (!subject.callerIp) return undefined;
  return intelStep(
    "intel-caller",
    subject,
    "A malicious or anonymizer verdict on the caller IP means an outsider acted.",
    { ips: [subject.callerIp], domains: [], hashes: [] },
  );
}

/** The finding's own resource in the admin activity log, by the name audit logs use. */
export function resourceStep(subject: Subject, expected: string): StepSpec {
  return {
    id: "resource-activity",
    intent: {
      kind: "resource_activity",
      params: {
        resource: [subject.auditResource],
        ...paramIfPresent("project", subject.project),
        ...windowParams(subject.window),
      },
    },
    expected,
  };
}

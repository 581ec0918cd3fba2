import { withoutTactic } from "../families.js";
import type { IntentKind, IntentParams } from "../intents.js";
import { isPublicIp } from "../net.js";
import { runbooksFor } from "../step-executor/runbooks.js";
import { lookBackStart, type Subject } from "../subject.js";
import { workloadOwners } from "../workload-owners.js";
import {
  followUpStep,
  historyStep,
  intelIocsStep,
  iocTrafficStep,
  resourceStep,
  workloadIocIps,
} from "./evidence-steps.js";
import { applicableSteps, type StepSpec, windowParams } from "./types.js";

/** A category about what is logged: its own logs may have stopped because someone changed them. */
const ABOUT_LOGGING = /\blog(s|ging)?\b|audit|sink|exclusion/i;

/**
 * The questions an analyst asks of any finding, by what it names (issue 37), whatever its
 * category and whether or not it has a playbook:
 * - indicators: their intel, the workload's traffic with them (for a name, with whatever it
 *   resolved to, joined in one query), and which names resolved to an address;
 * - a workload (a VM): what it resolved, where it connected, who connected to it, what its host logs say, whether
 *   or not the finding names addresses to trace (they say where it went; its own lookups and
 *   egress say what else it did);
 * - a workload on GKE: the Kubernetes audit of its controller (a rollout, a patch, its change
 *   cause) and, when the finding names no actor, that controller's changers and their habit;
 * - a principal and its credential: its history (first-seen network and client, or a habit),
 *   what it did next from every address, where its caller address shows up across tables
 *   (API calls, host logins), the IAM policy changes around it (a role removed before its calls
 *   were denied, a grant it made), and for a service account its keys (same key elsewhere, new keys);
 * - a configured resource: who changed it and with which request (what it declares itself to
 *   be, a change reference, a revert), and, when the finding names no principal, that
 *   changer's own history;
 * - absence: when the category is about logging, the changes to what is logged;
 * - granted members: who granted them (when the finding names no actor) and what they did next.
 * Each is one step with one runbook family; the planner adds the ones the playbook lacks.
 */
export function kindQuestions(subject: Subject): StepSpec[] {
  const w = windowParams(subject.window);
  const vm = subject.ids.resourceKind === "cluster" ? undefined : subject.instance;
  const callerIp = subject.callerIp && isPublicIp(subject.callerIp) ? subject.callerIp : undefined;
  const serviceAccount = subject.principal?.endsWith(".gserviceaccount.com") ? subject.principal : undefined;
  const owners = workloadOwners(subject.details).slice(0, 2);
  const aboutLogging = ABOUT_LOGGING.test(withoutTactic(subject.category).replace(/_/g, " "));
  return applicableSteps<StepSpec>([
    intelIocsStep(subject),
    iocTrafficStep(subject),
    workloadIocIps(subject).length > 0 && {
      id: "ioc-lookups",
      intent: { kind: "dns", params: { ips: workloadIocIps(subject), ...w } },
      expected:
        "Which names resolved to the finding's addresses before the workload connected: reached by a name (which one) or by a hard-coded address.",
    },
    subject.domains.length > 0 && {
      id: "name-traffic",
      intent: { kind: "flows", params: { domains: subject.domains.slice(0, 2), ...w } },
      expected:
        "Connections to whatever the finding's names resolved to, after each lookup: which workload connected, how often, how much.",
    },
    aboutLogging && {
      id: "logging-changes",
      intent: { kind: "logging_changes", params: w },
      expected:
        "Who removed or changed audit-log configuration, sinks or exclusions, and when: the logs that stop after it are the evidence, not a quiet period.",
    },
    resourceStep(
      subject,
      "Who changed the resource and with which request: what it declares itself to be (description, labels), a change reference, and whether it was changed back soon after.",
    ),
    historyStep(subject),
    !subject.principal &&
      subject.granted.length === 0 &&
      !vm && {
        id: "changer-history",
        intent: {
          kind: "principal_history",
          params: {
            resource: [subject.auditResource],
            recent: [subject.window.start],
            start: [lookBackStart(subject.window.start)],
            end: [subject.window.end],
          },
        },
        expected:
          "The history of whoever made the change: the same change from the same address on earlier days (a schedule), or a first-seen network and client.",
      },
    subject.principal && {
      id: "principal-next",
      intent: { kind: "principal_activity", params: { principal: [subject.principal], ...w } },
      expected:
        "What the principal did around and after the event, from every address and key: more credentials, new identities, data reads.",
    },
    subject.principal && {
      id: "credential-keys",
      intent: { kind: "iam_changes", params: { member: [subject.principal], ...w } },
      expected: serviceAccount
        ? "The IAM policy changes around the event and the service account's keys: a role taken away before its calls were denied, the same key used from other networks and clients, keys or grants created right after."
        : "The IAM policy changes around the event: a role taken away before the principal's calls were denied, a grant it made or received.",
    },
    !subject.principal &&
      subject.granted.length > 0 && {
        id: "grant-changes",
        intent: {
          kind: "iam_changes",
          params: { member: subject.granted.slice(0, 3).map((g) => g.member), ...w },
        },
        expected:
          "The IAM policy change that granted the finding's members their roles: who made it, from which address and client, with which change reference.",
      },
    callerIp && {
      id: "caller-reach",
      intent: { kind: "caller_activity", params: { ips: [callerIp], ...w } },
      expected: "Every API call from the caller's address: which identities acted from it and what they did.",
    },
    callerIp && {
      id: "caller-logins",
      intent: { kind: "ssh_auth", params: { ips: [callerIp], ...w } },
      expected: "Whether the caller's address also logged in to a host (a key added, then used).",
    },
    owners.length > 0 && {
      id: "workload-owner",
      intent: { kind: "resource_activity", params: { resource: owners, ...w } },
      expected:
        "The Kubernetes audit of the workload's controller: who created, patched or rolled it out shortly before the event, from where, with which change cause.",
    },
    owners[0] &&
      !subject.principal && {
        id: "owner-changers",
        intent: {
          kind: "principal_history",
          params: {
            resource: [owners[0]],
            recent: [subject.window.start],
            start: [lookBackStart(subject.window.start)],
            end: [subject.window.end],
          },
        },
        expected:
          "The history of whoever changed the controller: the same rollout from the same address on earlier days (a release habit), or a first-seen network and client.",
      },
    vm &&
      workloadStep(
        "workload-dns",
        "dns",
        { instance: [vm], ...w },
        "The names the workload resolved around the event: a rare or new name next to its usual ones, and the address it answered.",
      ),
    vm &&
      workloadStep(
        "workload-egress",
        "egress",
        { instance: [vm], ...w },
        "Where the workload connected: a new peer, a regular beacon or a large transfer stands out from its usual services.",
      ),
    vm &&
      workloadStep(
        "workload-ingress",
        "ingress",
        { instance: [vm], ...w },
        "Who connected to the workload: outside sources on its admin or service ports, how many flows, and whether one got further than the others.",
      ),
    vm &&
      workloadStep(
        "workload-host-logs",
        "host_logs",
        { instance: [vm], ...w },
        "The host's own log lines around the event: the process, a download, a package job, a login.",
      ),
    followUpStep(subject),
  ]);
}

function workloadStep(id: string, kind: IntentKind, params: IntentParams, expected: string): StepSpec {
  return { id, intent: { kind, params }, expected };
}

/**
 * What makes two steps ask the same question: the runbook calls they make (a flow step and an
 * egress step on one VM both read vpc_flows_from_instance), or, for a step whose values come
 * from earlier steps, its kind and values; never the window.
 */
function questionKey(spec: StepSpec): string {
  const calls = runbooksFor(spec.intent).map(({ runbook, params }) => {
    const { start: _s, end: _e, ...rest } = params;
    return `${runbook}:${JSON.stringify(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)))}`;
  });
  if (calls.length > 0) return calls.sort().join("|");
  const { start: _s, end: _e, recent: _r, logs: _l, ...values } = spec.intent.params;
  const sorted = Object.entries(values)
    .map(([k, v]) => [k, [...(v ?? [])].sort()] as const)
    .sort(([a], [b]) => a.localeCompare(b));
  return `${spec.intent.kind}:${JSON.stringify(sorted)}`;
}

const INDICATOR_PARAMS = ["ips", "domains", "hashes"] as const;

/** An intel lookup of values it names itself (not of what an earlier step will find). */
function intelLookupOf(spec: StepSpec): boolean {
  return (
    spec.intent.kind === "intel" &&
    (spec.dependsOn?.length ?? 0) === 0 &&
    INDICATOR_PARAMS.some((k) => (spec.intent.params[k]?.length ?? 0) > 0)
  );
}

function mergedValues(into: IntentParams, from: IntentParams): IntentParams {
  const out: IntentParams = { ...into };
  for (const key of INDICATOR_PARAMS) {
    const values = [...new Set([...(into[key] ?? []), ...(from[key] ?? [])])];
    if (values.length > 0) out[key] = values;
  }
  return out;
}

/**
 * The playbook's steps first (its order is its priority), then the questions by kind it does
 * not already ask, compared by what they ask, never by their ids; a step whose dependency is
 * not in the plan waits for none.
 */
export function withKindQuestions(playbook: readonly StepSpec[], questions: readonly StepSpec[]): StepSpec[] {
  const ids = new Set(playbook.map((s) => s.id));
  const asked = new Set(playbook.map(questionKey));
  const steps = [...playbook];
  const added: StepSpec[] = [];
  for (const q of questions) {
    if (asked.has(questionKey(q))) continue;
    const lookup = intelLookupOf(q) ? steps.findIndex(intelLookupOf) : -1;
    const into = steps[lookup];
    if (into) {
      // One intel lookup answers for every named indicator: the question's values join the
      // playbook's lookup instead of taking a step (and a place under the step cap) of their own.
      steps[lookup] = {
        ...into,
        intent: { ...into.intent, params: mergedValues(into.intent.params, q.intent.params) },
      };
      asked.add(questionKey(steps[lookup]));
      continue;
    }
    // A question that reads its values from earlier steps has nothing to ask without them.
    if (q.dependsOn && q.dependsOn.length > 0 && !q.dependsOn.some((d) => ids.has(d))) continue;
    // The same id on another question (the playbook's resource step about a different resource)
    // is a name clash, not the same question: it is asked under a name of its own.
    const id = ids.has(q.id) ? `${q.id}-kind` : q.id;
    ids.add(id);
    asked.add(questionKey(q));
    added.push({ ...q, id });
  }
  return [...steps, ...added].map((s) =>
    s.dependsOn ? { ...s, dependsOn: s.dependsOn.filter((d) => ids.has(d)) } : s,
  );
}

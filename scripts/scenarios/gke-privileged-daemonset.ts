import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { auditor, DAY, HOUR, MINUTE } from "./kit.js";
import { LogBook } from "./log-book.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const EVENT_TIME = "2025-11-26T09:31:02.115Z";
const CLUSTER = "ops-gke";
const LOCATION = "us-central1";
const NAMESPACE = "monitoring";
const WORKLOAD = "node-exporter";
const ARGO = "system:serviceaccount:argocd:argocd-application-controller";
const ARGO_POD_IP = "10.8.0.22";

/**
 * Event Threat Detection reports a privileged container launched in a GKE cluster: the
 * node-exporter DaemonSet in `monitoring`, which needs the host's /proc and /sys. Argo CD's
 * application controller applied it, from its pod's address, as it has on every release of
 * the monitoring stack this month: the operator's GitOps pattern repeating. The Kubernetes
 * audit log names the cluster, the namespace and the object; no VM name is involved.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const vms = [
    makeVm(rng, { name: "gke-ops-gke-default-pool-8a1c2d3e-4fgh", role: "web", host: 40 }),
    makeVm(rng, { name: "gke-ops-gke-default-pool-8a1c2d3e-9jkl", role: "web", host: 41 }),
    makeVm(rng, { name: "bastion-1", role: "bastion", host: 5, externalIp: "34.70.11.2" }),
  ];
  const env = makeEnvironment(rng, {
    projectId: "acme-ops-prod",
    domain: "acme-retail.com",
    vms,
    buckets: ["acme-ops-backups"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 20 * HOUR, end: T + 5 * HOUR }, rng.fork("noise"));

  const signal = rng.fork("signal");
  const call = auditor(book, env, signal);
  const k8s = { type: "k8s_cluster", labels: { cluster_name: CLUSTER, location: LOCATION } };
  const apply = (time: number, method: "create" | "patch", version: string) =>
    call(time, {
      principal: ARGO,
      callerIp: ARGO_POD_IP,
      userAgent: "argocd-application-controller/v2.12.3 (linux/amd64) kubernetes/$Format",
      serviceName: "k8s.io",
      methodName: `io.k8s.apps.v1.daemonsets.${method}`,
      resourceName: `apps/v1/namespaces/${NAMESPACE}/daemonsets/${WORKLOAD}`,
      resource: k8s,
      permission: `io.k8s.apps.v1.daemonsets.${method}`,
      request: {
        apiVersion: "apps/v1",
        kind: "DaemonSet",
        metadata: { name: WORKLOAD, namespace: NAMESPACE, labels: { "app.kubernetes.io/version": version } },
        spec: {
          template: {
            spec: {
              hostPID: true,
              containers: [
                {
                  name: WORKLOAD,
                  image: `quay.io/prometheus/node-exporter:${version}`,
                  securityContext: { privileged: true },
                },
              ],
            },
          },
        },
      },
    });
  const versions = ["v1.7.0", "v1.8.0", "v1.8.1", "v1.8.1", "v1.8.2", "v1.8.2", "v1.8.2"];
  for (const [i, daysBack] of [27, 23, 19, 15, 11, 7, 3].entries())
    apply(T - daysBack * DAY + signal.int(-90, 90) * MINUTE, "patch", versions[i] ?? "v1.8.2");
  apply(T - 15_000, "create", "v1.9.0");

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "Privilege Escalation: Launch of privileged Kubernetes container",
    findingClass: "THREAT",
    severity: "MEDIUM",
    eventTime: EVENT_TIME,
    resource: {
      name: `//container.googleapis.com/projects/${env.project.id}/locations/${LOCATION}/clusters/${CLUSTER}`,
      type: "google.container.Cluster",
      displayName: CLUSTER,
    },
    description: "A container with privileged mode turned on was created or updated in a Kubernetes cluster.",
    finding: {
      sourceProperties: {
        detectionCategory: { ruleName: "launch_privileged_container" },
        properties: { privilegedContainers: [WORKLOAD] },
      },
      kubernetes: {
        objects: [{ group: "apps", kind: "DaemonSet", ns: NAMESPACE, name: WORKLOAD }],
        pods: [
          {
            ns: NAMESPACE,
            name: `${WORKLOAD}-7xk2p`,
            containers: [{ name: WORKLOAD, uri: "quay.io/prometheus/node-exporter:v1.9.0" }],
          },
        ],
      },
      access: {
        principalEmail: ARGO,
        callerIp: ARGO_POD_IP,
        serviceName: "k8s.io",
        methodName: "io.k8s.apps.v1.daemonsets.create",
      },
      mitreAttack: { primaryTactic: "PRIVILEGE_ESCALATION", primaryTechniques: ["ESCAPE_TO_HOST"] },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-11-01T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-08-01T00:00:00.000Z", new Set());

  const expected: Expected = {
    scenario: "gke-privileged-daemonset",
    category: "Privilege Escalation: Launch of privileged Kubernetes container",
    verdict: "benign",
    acceptableVerdicts: ["benign", "false_positive"],
    requiredIocs: [],
    requiredEvidence: [
      {
        id: "recurring",
        description:
          "Argo CD applied the same privileged DaemonSet on 7 earlier days this month, the first 27 days before",
        anyOf: [new Date(T - 27 * DAY).toISOString().slice(0, 10)],
      },
      { id: "same-caller", description: "from its own pod's address", anyOf: [ARGO_POD_IP] },
    ],
    optionalEvidence: [{ id: "object", description: "the DaemonSet", anyOf: [`daemonsets/${WORKLOAD}`] }],
    mitreTechniques: [],
    probes: [
      {
        runbook: "principal_history",
        params: { principal: ARGO, recent: new Date(T - 24 * HOUR).toISOString() },
        window: { hoursBefore: 24 * 30, hoursAfter: 6 },
        expect: [ARGO_POD_IP, '"days_before":7', "daemonsets.patch"],
        why: "the controller's month: the same object, same address, seven releases",
      },
      {
        runbook: "resource_activity",
        params: { resource: `namespaces/${NAMESPACE}/daemonsets/${WORKLOAD}` },
        window: { hoursBefore: 24, hoursAfter: 6 },
        expect: ["daemonsets.create", ARGO],
        why: "the change the finding reports, in the Kubernetes audit log",
      },
    ],
    story:
      `Argo CD (${ARGO}) created the privileged ${NAMESPACE}/${WORKLOAD} DaemonSet in ${CLUSTER} at ${EVENT_TIME.slice(11, 16)} UTC from ${ARGO_POD_IP}, ` +
      "as it patched it on seven earlier releases this month. node-exporter needs host access by design; the GitOps controller's habit corroborates it.",
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const gkePrivilegedDaemonset: ScenarioDefinition = {
  name: "gke-privileged-daemonset",
  seed: "ferret/gke-privileged-daemonset/v1",
  build,
};

import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { onEarlierDays, workdays } from "./habit.js";
import { auditor, HOUR, MINUTE } from "./kit.js";
import { LogBook } from "./log-book.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const EVENT_TIME = "2025-12-04T11:19:26.045Z";
const CLUSTER = "checkout-gke";
const LOCATION = "europe-west4";
const NAMESPACE = "payments";
const WORKLOAD = "payments-api";
const BINARY = "/app/bin/migrate";
const AGENT = "kubectl/v1.31.2 (linux/amd64) kubernetes/5864a46";

/**
 * Container Threat Detection sees a binary that was not in the image run in a payments-api
 * container. Four minutes earlier the CI deployer rolled the deployment out with the change
 * cause "CHG-5120 release 3.14 adds migrate step", as it rolls it out on most weekdays; all
 * three replicas ran the same binary after the same rollout. A release step, seen on every peer.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const nodes = ["a1b2", "c3d4", "e5f6"].map((s, i) =>
    makeVm(rng, {
      name: `gke-${CLUSTER}-default-pool-${s}-x${i}`,
      role: "web",
      host: 50 + i,
      zone: "europe-west4-a",
    }),
  );
  const env = makeEnvironment(rng, {
    projectId: "saffron-retail-prod",
    domain: "saffron-retail.com",
    vms: nodes,
    buckets: ["saffron-releases"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 20 * HOUR, end: T + 5 * HOUR }, rng.fork("noise"));
  const signal = rng.fork("signal");
  const call = auditor(book, env, signal);
  const ci = env.serviceAccounts.ci;
  const rollout = (time: number, release: string, cause: string) =>
    call(time, {
      principal: ci,
      callerIp: env.ciIps[0],
      userAgent: AGENT,
      serviceName: "k8s.io",
      methodName: "io.k8s.apps.v1.deployments.patch",
      resourceName: `apps/v1/namespaces/${NAMESPACE}/deployments/${WORKLOAD}`,
      resource: { type: "k8s_cluster", labels: { cluster_name: CLUSTER, location: LOCATION } },
      permission: "io.k8s.apps.v1.deployments.patch",
      request: {
        metadata: { annotations: { "kubernetes.io/change-cause": cause } },
        spec: {
          template: {
            spec: {
              containers: [
                {
                  name: WORKLOAD,
                  image: `europe-docker.pkg.dev/${env.project.id}/apps/${WORKLOAD}:${release}`,
                },
              ],
            },
          },
        },
      },
    });
  onEarlierDays(signal, T, workdays(30), (time, i) =>
    rollout(time, `3.13.${i}`, `CHG-${5000 + i} release 3.13.${i}`),
  );
  rollout(T - 4 * MINUTE, "3.14.0", "CHG-5120 release 3.14 adds migrate step");
  const pods = ["7d9f8-2xkqp", "7d9f8-b8wnm", "7d9f8-qq4rt"].map((s) => `${WORKLOAD}-${s}`);

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "containerThreatDetection",
    category: "Execution: Added Binary Executed",
    findingClass: "THREAT",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    resource: {
      name: `//container.googleapis.com/projects/${env.project.id}/locations/${LOCATION}/clusters/${CLUSTER}`,
      type: "google.container.Cluster",
      displayName: CLUSTER,
    },
    description: "A binary that was not part of the original container image was executed.",
    finding: {
      process: { binary: { path: BINARY }, args: [BINARY, "--apply"], pid: 41 },
      kubernetes: {
        pods: [
          {
            ns: NAMESPACE,
            name: pods[0],
            containers: [
              { name: WORKLOAD, uri: `europe-docker.pkg.dev/${env.project.id}/apps/${WORKLOAD}:3.14.0` },
            ],
          },
        ],
        nodes: [{ name: nodes[0]?.name }],
      },
      mitreAttack: { primaryTactic: "EXECUTION", primaryTechniques: ["CONTAINER_ADMINISTRATION_COMMAND"] },
    },
  });
  const intel = new StixBundle(rng.fork("intel"), "2025-11-20T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-08-01T00:00:00.000Z", new Set(env.ciIps));

  const expected: Expected = {
    scenario: "gke-added-binary-rollout",
    category: "Execution: Added Binary Executed",
    verdict: "benign",
    acceptableVerdicts: ["benign", "false_positive"],
    requiredIocs: [],
    requiredEvidence: [
      {
        id: "rollout",
        description: "the CI deployer rolled out release 3.14 four minutes earlier",
        anyOf: ["deployments.patch", "CHG-5120"],
      },
      { id: "ci-author", description: "from the CI runner", anyOf: [env.ciIps[0] ?? ""] },
    ],
    optionalEvidence: [{ id: "binary", description: "the binary", anyOf: [BINARY] }],
    mitreTechniques: [],
    probes: [
      {
        runbook: "resource_activity",
        params: { resource: `deployments/${WORKLOAD}` },
        window: { hoursBefore: 2, hoursAfter: 1 },
        expect: ["io.k8s.apps.v1.deployments.patch", ci, env.ciIps[0] ?? ""],
        why: "the rollout minutes before",
      },
      {
        runbook: "principal_history",
        params: { principal: ci, recent: new Date(T - 6 * HOUR).toISOString() },
        window: { hoursBefore: 24 * 31, hoursAfter: 2 },
        expect: ["io.k8s.apps.v1.deployments.patch", env.ciIps[0] ?? ""],
        why: "the deployer rolls the deployment out on most weekdays",
      },
    ],
    story: `${ci} rolled ${NAMESPACE}/${WORKLOAD} out to 3.14.0 (CHG-5120, adds a migrate step) four minutes before ${BINARY} ran in all three replicas; the deployer does the same on most weekdays from the runner.`,
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const gkeAddedBinaryRollout: ScenarioDefinition = {
  name: "gke-added-binary-rollout",
  seed: "ferret/gke-added-binary-rollout/v1",
  build,
};

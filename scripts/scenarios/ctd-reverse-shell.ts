import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { conversation, HOUR, MINUTE } from "./kit.js";
import { LogBook } from "./log-book.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const EVENT_TIME = "2025-11-04T14:22:09.314Z";
const CLUSTER = "shop-prod-gke";
const NODE = "gke-shop-prod-gke-default-pool-3f2a1b9c-x7kq";
const POD = "checkout-7d9f8c6b5-qx2lp";
const NAMESPACE = "payments";
const POD_IP = "10.8.3.14";
const ATTACKER = "198.51.100.23";
const PORT = 4444;

/**
 * Container Threat Detection sees `bash -i` in the checkout container with its standard
 * streams on a socket to an address on the internet. The finding names the cluster (its
 * resource), the pod and the node; the flows that prove the shell ran are logged under the
 * node VM's name, never the cluster's: three sessions to the listener over 48 minutes.
 * Threat intel knows nothing about the address.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const node = makeVm(rng, { name: NODE, role: "web", host: 40 });
  const vms = [
    node,
    makeVm(rng, { name: "gke-shop-prod-gke-default-pool-3f2a1b9c-m2vd", role: "web", host: 41 }),
    makeVm(rng, { name: "gke-shop-prod-gke-default-pool-3f2a1b9c-p81z", role: "web", host: 42 }),
    makeVm(rng, { name: "orders-db-1", role: "db", host: 30 }),
    makeVm(rng, { name: "bastion-1", role: "bastion", host: 5, externalIp: "34.70.11.2" }),
  ];
  const env = makeEnvironment(rng, {
    projectId: "acme-shop-prod",
    domain: "acme-retail.com",
    vms,
    buckets: ["acme-shop-assets", "acme-shop-orders-archive"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 8 * HOUR, end: T + 2 * HOUR }, rng.fork("noise"));

  const signal = rng.fork("signal");
  const sessions = [
    { port: 51244, start: T - 2 * MINUTE, duration: 21 * MINUTE },
    { port: 51302, start: T + 24 * MINUTE, duration: 14 * MINUTE },
    { port: 51876, start: T + 41 * MINUTE, duration: 5 * MINUTE },
  ];
  for (const s of sessions)
    conversation(book, env, signal, {
      vm: node,
      localIp: POD_IP,
      localPort: s.port,
      remoteIp: ATTACKER,
      remotePort: PORT,
      start: s.start,
      durationMs: s.duration,
      intervalMs: 60_000,
      bytesOut: [8_000, 60_000],
      bytesIn: [2_000, 30_000],
      location: { continent: "Europe", country: "rou", city: "Bucharest", asn: 64511 },
    });

  const imageDigest = `sha256:${signal.hex(64)}`;
  const notification = sccNotification(rng.fork("finding"), env, {
    source: "containerThreatDetection",
    category: "Reverse Shell",
    findingClass: "THREAT",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    resource: {
      name: `//container.googleapis.com/projects/${env.project.id}/locations/us-central1/clusters/${CLUSTER}`,
      type: "google.container.Cluster",
      displayName: CLUSTER,
    },
    description:
      "A process started with stream redirection to a remote connected socket, giving the remote end a shell in the container.",
    finding: {
      processes: [
        {
          name: "bash",
          binary: { path: "/bin/bash", sha256: signal.hex(64) },
          args: ["/bin/bash", "-i"],
          pid: "31337",
          parentPid: "31301",
        },
      ],
      connections: [
        {
          destinationIp: ATTACKER,
          destinationPort: PORT,
          sourceIp: POD_IP,
          sourcePort: sessions[0]?.port,
          protocol: "TCP",
        },
      ],
      kubernetes: {
        pods: [
          {
            ns: NAMESPACE,
            name: POD,
            containers: [
              {
                name: "checkout",
                uri: `us-docker.pkg.dev/${env.project.id}/shop/checkout:2.14.1`,
                imageId: `us-docker.pkg.dev/${env.project.id}/shop/checkout@${imageDigest}`,
              },
            ],
          },
        ],
        nodes: [{ name: NODE }],
        nodePools: [{ name: "default-pool", nodes: [{ name: NODE }] }],
      },
      containers: [
        {
          name: "checkout",
          uri: `us-docker.pkg.dev/${env.project.id}/shop/checkout:2.14.1`,
          imageId: `us-docker.pkg.dev/${env.project.id}/shop/checkout@${imageDigest}`,
        },
      ],
      mitreAttack: {
        primaryTactic: "EXECUTION",
        primaryTechniques: ["COMMAND_AND_SCRIPTING_INTERPRETER", "UNIX_SHELL"],
      },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-10-01T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-07-01T00:00:00.000Z", new Set([ATTACKER]));

  const expected: Expected = {
    scenario: "ctd-reverse-shell",
    category: "Reverse Shell",
    verdict: "true_positive",
    acceptableVerdicts: ["true_positive"],
    requiredIocs: [{ type: "ip", value: ATTACKER, why: "the listener the shell connected to" }],
    requiredEvidence: [
      {
        id: "shell-sessions",
        description: `the node VM ${NODE} held sessions to ${ATTACKER}:${PORT} (the finding's own remote end)`,
        anyOf: [NODE],
      },
      {
        id: "listener-port",
        description: "the sessions went to the listener's port",
        anyOf: [`port ${PORT}`, `:${PORT}`],
      },
    ],
    optionalEvidence: [
      { id: "three-sessions", description: "three separate sessions", anyOf: ["3 session"] },
      { id: "pod", description: "the pod the shell ran in", anyOf: [POD] },
    ],
    mitreTechniques: ["T1059.004"],
    probes: [
      {
        runbook: "vpc_flows_to_ip",
        params: { ip: ATTACKER },
        window: { hoursBefore: 6, hoursAfter: 1 },
        expect: [NODE, String(PORT), '"sessions":3'],
        why: "the finding's own remote address, seen from the node VM that runs the pod",
      },
      {
        runbook: "vpc_flows_from_instance",
        params: { instance: CLUSTER },
        window: { hoursBefore: 6, hoursAfter: 1 },
        expect: [],
        rows: "none",
        trap: true,
        why: "a cluster is not a VM: its name finds no flows (the wrong-identifier trap)",
      },
    ],
    story:
      `At ${EVENT_TIME.slice(11, 16)} UTC bash in pod ${NAMESPACE}/${POD} of cluster ${CLUSTER} was attached to a socket to ${ATTACKER}:${PORT}. ` +
      `VPC flows logged under the node VM ${NODE} (pod IP ${POD_IP}) show three sessions to that listener over 48 minutes, kilobytes each minute both ways. ` +
      "Intel has no record of the address; the traffic to the finding's own IOC is what confirms the shell.",
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const ctdReverseShell: ScenarioDefinition = {
  name: "ctd-reverse-shell",
  seed: "ferret/ctd-reverse-shell/v1",
  build,
};

import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { onEarlierDays, workdays } from "./habit.js";
import { auditor, HOUR, MINUTE } from "./kit.js";
import { LogBook } from "./log-book.js";
import { syslogLine, TABLES } from "./log-entries.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const EVENT_TIME = "2025-11-04T02:17:09.412Z";
const DEV = "dev.marsh@orionlabs.io";
const ROGUE_IP = "203.0.113.77";
const ROGUE_AGENT = "python-requests/2.31.0";
const BROWSER =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36,gzip(gfe)";
const RUNNER = "build-runner-2";

/**
 * A developer account in the company's own domain adds a project-wide SSH key for a user
 * "mallory" at 02:17 UTC, from an address and a client it never used in the month before (it
 * always works from the office with a browser); six minutes later sshd on a build runner
 * accepts that key from the same address. The domain is not the account's alibi: the
 * first-seen network and the login that followed are the finding.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const runner = makeVm(rng, { name: RUNNER, role: "build", host: 31, externalIp: "34.72.8.19" });
  const vms = [runner, makeVm(rng, { name: "build-runner-1", role: "build", host: 30 })];
  const env = makeEnvironment(rng, {
    projectId: "orion-build-prod",
    domain: "orionlabs.io",
    vms,
    buckets: ["orion-build-artifacts"],
    users: ["dev.marsh", "lena.ortiz", "sam.ito"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 20 * HOUR, end: T + 5 * HOUR }, rng.fork("noise"));

  const signal = rng.fork("signal");
  const call = auditor(book, env, signal);
  const vmCall = (time: number, method: string, vm: (typeof vms)[number]) =>
    call(time, {
      principal: DEV,
      callerIp: signal.pick(env.officeIps),
      userAgent: BROWSER,
      serviceName: "compute.googleapis.com",
      methodName: method,
      resourceName: `projects/${env.project.id}/zones/${vm.zone}/instances/${vm.name}`,
      resource: { type: "gce_instance", labels: { instance_id: vm.id, zone: vm.zone } },
      permission: method.replace("v1.compute.", "compute."),
    });
  onEarlierDays(signal, T + 8 * HOUR, workdays(30), (time) => {
    vmCall(time, "v1.compute.instances.reset", signal.pick(vms));
    vmCall(time + 20 * MINUTE, "v1.compute.instances.setLabels", signal.pick(vms));
  });
  call(T, {
    principal: DEV,
    callerIp: ROGUE_IP,
    userAgent: ROGUE_AGENT,
    serviceName: "compute.googleapis.com",
    methodName: "v1.compute.projects.setCommonInstanceMetadata",
    resourceName: `projects/${env.project.id}`,
    resource: { type: "gce_project", labels: {} },
    permission: "compute.projects.setCommonInstanceMetadata",
    request: {
      "@type": "type.googleapis.com/compute.projects.setCommonInstanceMetadata",
      Metadata: { "Metadata Keys Modified": ["ssh-keys"] },
      items: [{ key: "ssh-keys", value: "mallory:ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHkq mallory" }],
    },
    operation: { id: `operation-${T}-${signal.hex(12)}`, producer: "compute.googleapis.com" },
  });
  const log = (time: number, program: string, message: string, pid?: number) =>
    book.add(
      TABLES.syslog,
      syslogLine(signal, {
        project: env.project,
        time,
        vm: runner,
        program,
        message,
        ...(pid ? { pid } : {}),
      }),
    );
  log(T + 40_000, "google_guest_agent", "Updating keys for user mallory.");
  log(T + 41_000, "google_guest_agent", "Creating user mallory.");
  const login = T + 6 * MINUTE + 12_000;
  log(
    login,
    "sshd",
    `Accepted publickey for mallory from ${ROGUE_IP} port 51022 ssh2: ED25519 SHA256:Hq9${signal.hex(20)}`,
    30211,
  );
  log(
    login + 80,
    "sshd",
    "pam_unix(sshd:session): session opened for user mallory(uid=1003) by (uid=0)",
    30211,
  );
  log(
    login + 40_000,
    "sudo",
    "mallory : TTY=pts/0 ; PWD=/home/mallory ; USER=root ; COMMAND=/usr/bin/cat /etc/gitlab-runner/config.toml",
  );

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "Persistence: Project SSH Key Added",
    findingClass: "THREAT",
    severity: "LOW",
    eventTime: EVENT_TIME,
    resource: {
      name: `//compute.googleapis.com/projects/${env.project.id}`,
      type: "google.cloud.resourcemanager.Project",
      displayName: env.project.id,
    },
    description: "A project-wide SSH key was added to the project metadata.",
    finding: {
      access: {
        principalEmail: DEV,
        callerIp: ROGUE_IP,
        serviceName: "compute.googleapis.com",
        methodName: "v1.compute.projects.setCommonInstanceMetadata",
        principalSubject: `user:${DEV}`,
      },
      mitreAttack: {
        primaryTactic: "PERSISTENCE",
        primaryTechniques: ["ACCOUNT_MANIPULATION", "SSH_AUTHORIZED_KEYS"],
      },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-10-15T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-08-01T00:00:00.000Z", new Set([ROGUE_IP]));

  const expected: Expected = {
    scenario: "project-ssh-key-unknown-network",
    category: "Persistence: Project SSH Key Added",
    verdict: "true_positive",
    acceptableVerdicts: ["true_positive"],
    requiredIocs: [
      { type: "ip", value: ROGUE_IP, why: "the first-seen address the key was added and used from" },
    ],
    requiredEvidence: [
      {
        id: "first-seen-network",
        description: `${DEV} never called from ${ROGUE_IP} or with ${ROGUE_AGENT} in the month before; always the office and a browser`,
        anyOf: [ROGUE_AGENT, "first seen", "first-seen"],
      },
      {
        id: "key-used",
        description: `sshd on ${RUNNER} accepted the new key for mallory from ${ROGUE_IP}`,
        anyOf: ["Accepted publickey for mallory", "mallory"],
      },
    ],
    optionalEvidence: [
      { id: "runner-config", description: "root read the runner's config", anyOf: ["config.toml"] },
    ],
    mitreTechniques: ["T1098.004"],
    probes: [
      {
        runbook: "principal_history",
        params: { principal: DEV, recent: new Date(T - 6 * HOUR).toISOString() },
        window: { hoursBefore: 24 * 31, hoursAfter: 6 },
        expect: [ROGUE_IP, ROGUE_AGENT, env.officeIps[0] ?? ""],
        why: "the developer's month: office addresses and a browser; the finding's address is new",
      },
      {
        runbook: "ssh_logins_from_ip",
        params: { ip: ROGUE_IP },
        window: { hoursBefore: 2, hoursAfter: 2 },
        expect: [RUNNER, "mallory"],
        why: "the key was used from the same address minutes later",
      },
    ],
    story:
      `${DEV} added a project-wide SSH key for "mallory" at 02:17 UTC from ${ROGUE_IP} with ${ROGUE_AGENT}, a network and client the account never used ` +
      `(a month of office addresses and a browser); six minutes later sshd on ${RUNNER} accepted that key from ${ROGUE_IP} and mallory read the runner's config as root.`,
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const projectSshKeyUnknownNetwork: ScenarioDefinition = {
  name: "project-ssh-key-unknown-network",
  seed: "ferret/project-ssh-key-unknown-network/v1",
  build,
};

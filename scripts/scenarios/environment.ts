import type { Rng } from "./prng.js";

/** The fictional organization a scenario plays in. Attackers use documentation IP ranges. */
export interface Project {
  id: string;
  number: string;
}

export interface Vm {
  name: string;
  id: string;
  zone: string;
  region: string;
  ip: string;
  /** Set when the VM has an external address. */
  externalIp?: string;
  subnet: string;
  /** Whether sshd on it is reachable from the internet (scanner noise lands there). */
  sshExposed?: boolean;
  /** What the VM does; selects its syslog and traffic noise. */
  role: "etl" | "web" | "db" | "bastion" | "scanner" | "build";
}

export interface Environment {
  orgId: string;
  domain: string;
  project: Project;
  vms: Vm[];
  /** People with console/gcloud access. */
  users: string[];
  /** Office or VPN egress addresses people call the APIs from. */
  officeIps: string[];
  /** Addresses the CI/CD system calls the APIs from. */
  ciIps: string[];
  serviceAccounts: {
    terraform: string;
    ci: string;
    workload: string;
    computeDefault: string;
  };
  buckets: string[];
}

export function serviceAccount(name: string, project: Project): string {
  return `${name}@${project.id}.iam.gserviceaccount.com`;
}

export function makeVm(
  rng: Rng,
  spec: {
    name: string;
    role: Vm["role"];
    host: number;
    zone?: string;
    externalIp?: string;
    sshExposed?: boolean;
  },
): Vm {
  const zone = spec.zone ?? "us-central1-a";
  return {
    name: spec.name,
    // 16 digits keeps the id exact as a JSON number (DNS logs carry it as an int64).
    id: `${rng.int(1, 8)}${rng.digits(15)}`,
    zone,
    region: zone.replace(/-[a-z]$/, ""),
    ip: `10.128.0.${spec.host}`,
    ...(spec.externalIp ? { externalIp: spec.externalIp } : {}),
    subnet: "default",
    ...(spec.sshExposed ? { sshExposed: true } : {}),
    role: spec.role,
  };
}

/** A standard small environment; scenarios rename and extend it. */
export function makeEnvironment(
  rng: Rng,
  spec: { projectId: string; domain: string; vms: Vm[]; buckets: string[]; users?: string[] },
): Environment {
  const project = { id: spec.projectId, number: rng.digits(12) };
  const users = spec.users ?? ["alice.nguyen", "bob.schmidt", "carol.okafor"];
  return {
    orgId: rng.digits(12),
    domain: spec.domain,
    project,
    vms: spec.vms,
    users: users.map((u) => `${u}@${spec.domain}`),
    // Public corporate egress; fixed so the same office shows up across days.
    officeIps: ["34.118.12.41", "34.118.12.42"],
    ciIps: ["35.192.77.14", "35.192.77.19"],
    serviceAccounts: {
      terraform: serviceAccount("terraform", project),
      ci: serviceAccount("ci-deployer", project),
      workload: serviceAccount("etl-runner", project),
      computeDefault: `${project.number}-compute@developer.gserviceaccount.com`,
    },
    buckets: spec.buckets,
  };
}

/** A public IPv4 from ordinary ISP space, never a documentation or private range. */
export function publicClientIp(rng: Rng): string {
  const firstOctets = [24, 31, 45, 62, 73, 77, 81, 88, 91, 94, 98, 109, 151, 176, 185, 188, 212, 213, 217];
  return `${rng.pick(firstOctets)}.${rng.int(1, 254)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
}

import { type Finding, FindingSchema } from "../../../../functions/src/domain/finding/finding.js";

type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends object ? (T[K] extends unknown[] ? T[K] : DeepPartial<T[K]>) : T[K];
};

/** A minimal valid Finding; each family builder fills in what its category carries. Values are fictitious. */
export function makeFinding(overrides: DeepPartial<Finding> & Pick<Finding, "category">): Finding {
  const base: Finding = {
    name: "organizations/100/sources/200/findings/f-test",
    category: overrides.category,
    severity: "HIGH",
    findingClass: "THREAT",
    state: "ACTIVE",
    mute: "UNMUTED",
    eventTime: "2025-03-04T10:00:00.000Z",
    resource: {
      name: "//cloudresourcemanager.googleapis.com/projects/555",
      project: "//cloudresourcemanager.googleapis.com/projects/555",
      projectDisplayName: "acme-prod",
    },
    indicators: { ipAddresses: [], domains: [], uris: [], hashes: [], signatures: [] },
    processes: [],
    connections: [],
    iamBindings: [],
    files: [],
    mitre: { techniques: [], tactics: [] },
    sourceProperties: {},
    truncated: [],
  };
  const merged = {
    ...base,
    ...overrides,
    resource: { ...base.resource, ...overrides.resource },
    indicators: { ...base.indicators, ...overrides.indicators },
    mitre: { ...base.mitre, ...overrides.mitre },
  };
  return FindingSchema.parse(merged);
}

export const vmResource = (project: string, vm: string) => ({
  name: `//compute.googleapis.com/projects/${project}/zones/europe-west1-b/instances/7700112233`,
  type: "google.compute.Instance",
  projectDisplayName: project,
  displayName: vm,
});

export function cryptominingFinding(
  v = {
    project: "acme-prod",
    vm: "batch-7",
    poolIp: "203.0.113.50",
    poolDomain: "pool.minexmr-relay.top",
    hash: "a".repeat(64),
  },
): Finding {
  return makeFinding({
    category: "Execution: Cryptocurrency Mining Combined Detection",
    resource: vmResource(v.project, v.vm),
    indicators: {
      ipAddresses: [v.poolIp],
      domains: [v.poolDomain],
      hashes: [v.hash],
      uris: [],
      signatures: [],
    },
    processes: [
      {
        name: "kthreadx",
        binaryPath: "/var/tmp/.x/kthreadx",
        sha256: v.hash,
        args: ["-o", `stratum+tcp://${v.poolDomain}:3333`],
      },
    ],
    connections: [{ destinationIp: v.poolIp, destinationPort: 3333, sourceIp: "10.1.0.5", protocol: "TCP" }],
  });
}

export function iamGrantFinding(
  v = {
    project: "acme-prod",
    granter: "ops-admin@acme.example",
    member: "helper.contractor@gmail.com",
    callerIp: "198.51.100.20",
  },
): Finding {
  return makeFinding({
    category: "Persistence: IAM Anomalous Grant",
    resource: {
      name: `//cloudresourcemanager.googleapis.com/projects/${v.project}`,
      type: "google.cloud.resourcemanager.Project",
      projectDisplayName: v.project,
    },
    access: {
      principalEmail: v.granter,
      callerIp: v.callerIp,
      methodName: "SetIamPolicy",
      serviceName: "cloudresourcemanager.googleapis.com",
    },
    iamBindings: [{ action: "ADD", role: "roles/owner", member: `user:${v.member}` }],
  });
}

export function badDomainFinding(
  v = { project: "acme-prod", vm: "web-3", domain: "update-check.badcdn.xyz" },
): Finding {
  return makeFinding({
    category: "Malware: Bad Domain",
    resource: vmResource(v.project, v.vm),
    indicators: { domains: [v.domain], ipAddresses: [], uris: [], hashes: [], signatures: [] },
  });
}

export function bruteForceFinding(
  v = { project: "acme-prod", vm: "bastion-2", attacker: "198.51.100.77" },
): Finding {
  return makeFinding({
    category: "Brute force: SSH",
    resource: vmResource(v.project, v.vm),
    indicators: { ipAddresses: [v.attacker], domains: [], uris: [], hashes: [], signatures: [] },
    connections: [{ sourceIp: v.attacker, destinationIp: "34.77.1.2", destinationPort: 22, protocol: "TCP" }],
  });
}

export function leakedKeyFinding(
  v = { project: "acme-prod", sa: "etl-runner@acme-prod.iam.gserviceaccount.com", callerIp: "185.220.101.9" },
): Finding {
  return makeFinding({
    category: "Initial Access: Account Has Leaked Credentials",
    resource: {
      name: `//iam.googleapis.com/projects/${v.project}/serviceAccounts/${v.sa}`,
      type: "google.iam.ServiceAccount",
      projectDisplayName: v.project,
    },
    access: {
      principalEmail: v.sa,
      callerIp: v.callerIp,
      serviceAccountKeyName: "keys/0123abcd",
      methodName: "storage.objects.list",
    },
  });
}

export function publicBucketFinding(v = { project: "acme-prod", bucket: "acme-exports-2025" }): Finding {
  return makeFinding({
    category: "PUBLIC_BUCKET_ACL",
    findingClass: "MISCONFIGURATION",
    severity: "HIGH",
    resource: {
      name: `//storage.googleapis.com/${v.bucket}`,
      type: "google.cloud.storage.Bucket",
      projectDisplayName: v.project,
      displayName: v.bucket,
    },
  });
}

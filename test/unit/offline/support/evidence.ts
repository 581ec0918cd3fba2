import { at, audit, dns, flow, type Row, syslog, type Tables } from "./logs.js";

/**
 * Synthetic log sets per family, each built to support one verdict. Times are relative to
 * the findings' eventTime (2025-03-04T10:00Z): activity sits inside the first query window.
 */
export const T0 = "2025-03-04T08:00:00Z";
const line = (vm: string, text: string) => `Mar  4 08:00:00 ${vm} ${text}`;

/** Background a populated log needs: other VMs and Google APIs talking, so "none" means none. */
function background(vm: string): Row[] {
  return Array.from({ length: 6 }, (_, i) =>
    flow({ at: at(T0, i * 10), src: "10.1.0.5", dest: "142.250.1.10", port: 443, bytes: 4_000, srcVm: vm }),
  );
}

export function miningFlows(vm: string, pool: string, count = 40): Row[] {
  return Array.from({ length: count }, (_, i) =>
    flow({ at: at(T0, i * 2), src: "10.1.0.5", dest: pool, port: 3333, bytes: 60_000, srcVm: vm }),
  );
}

export const cryptominingLogs = (
  vm: string,
  pool: string,
  domain: string,
  project = "acme-prod",
): Tables => ({
  compute_googleapis_com_vpc_flows: [...background(vm), ...miningFlows(vm, pool)],
  dns_googleapis_com_dns_queries: [dns({ at: at(T0, -1), vm, name: domain, answer: pool, project })],
  syslog: [
    syslog({
      at: at(T0, 5),
      vm,
      text: line(vm, "CRON[812]: (app) CMD (/var/tmp/.x/kthreadx --donate-level=0)"),
    }),
  ],
});

export const quietLogs = (vm: string): Tables => ({
  compute_googleapis_com_vpc_flows: background(vm),
  syslog: [
    syslog({ at: at(T0, 1), vm, text: line(vm, "systemd[1]: Started Daily apt download activities.") }),
  ],
});

export function sshFailures(vm: string, ip: string, count: number, user = "root"): Row[] {
  return Array.from({ length: count }, (_, i) =>
    syslog({
      at: at(T0, i),
      vm,
      text: line(vm, `sshd[${2000 + i}]: Failed password for ${user} from ${ip} port ${40000 + i} ssh2`),
    }),
  );
}

export const sshAccepted = (vm: string, ip: string, user: string, minute: number): Row =>
  syslog({
    at: at(T0, minute),
    vm,
    text: line(vm, `sshd[3100]: Accepted password for ${user} from ${ip} port 51515 ssh2`),
  });

export const iamGrant = (o: {
  granter: string;
  member: string;
  callerIp: string;
  userAgent?: string;
  request?: string;
}): Row =>
  audit({
    at: at(T0, 90),
    method: "SetIamPolicy",
    principal: o.granter,
    callerIp: o.callerIp,
    resource: "projects/acme-prod",
    userAgent: o.userAgent ?? "Mozilla/5.0 console",
    deltas: [{ action: "ADD", role: "roles/owner", member: `user:${o.member}` }],
    ...(o.request ? { request: o.request } : {}),
  });

export const objectRead = (
  bucket: string,
  object: string,
  minute: number,
  principal?: string,
  callerIp = "203.0.113.199",
): Row =>
  audit({
    at: at(T0, minute),
    method: "storage.objects.get",
    bucket,
    resource: `projects/_/buckets/${bucket}/objects/${object}`,
    callerIp,
    ...(principal ? { principal } : {}),
  });

export const publicGrant = (bucket: string, by: string, request?: string): Row =>
  audit({
    at: at(T0, -30),
    method: "storage.setIamPermissions",
    bucket,
    principal: by,
    resource: `projects/_/buckets/${bucket}`,
    deltas: [{ action: "ADD", role: "roles/storage.objectViewer", member: "allUsers" }],
    ...(request ? { request } : {}),
  });

import type { Environment, Vm } from "./environment.js";
import type { LogBook } from "./log-book.js";
import { type AuditSpec, auditEntry, lbRequest, TABLES, vpcFlow } from "./log-entries.js";
import type { Rng } from "./prng.js";

/** Shared helpers of the scenarios written for issue 30 (categories without a playbook of their own). */
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export type AuditCall = Omit<AuditSpec, "project" | "time" | "table"> & {
  table?: AuditSpec["table"];
};

/** Adds audit entries for one actor: every call shares the principal, caller and user agent given. */
export function auditor(book: LogBook, env: Environment, rng: Rng) {
  return (time: number, call: AuditCall) => {
    const table = call.table ?? TABLES.activity;
    book.add(table, auditEntry(rng, { ...call, table, project: env.project, time }));
  };
}

/**
 * A TCP or UDP conversation between a VM and a remote address as VPC Flow Logs sample it:
 * one record per aggregation interval in each direction, from the VM's side.
 */
export function conversation(
  book: LogBook,
  env: Environment,
  rng: Rng,
  spec: {
    vm: Vm;
    /** The address the VM's packets carry (a GKE pod's alias IP, or the VM's own). */
    localIp?: string;
    localPort: number;
    remoteIp: string;
    remotePort: number;
    start: number;
    durationMs: number;
    intervalMs: number;
    bytesOut: [number, number];
    bytesIn: [number, number];
    protocol?: number;
    location?: { continent: string; country: string; region?: string; city?: string; asn: number };
  },
): void {
  const local = { ip: spec.localIp ?? spec.vm.ip, port: spec.localPort, vm: spec.vm };
  const remote = {
    ip: spec.remoteIp,
    port: spec.remotePort,
    ...(spec.location ? { location: spec.location } : {}),
  };
  for (let t = spec.start; t <= spec.start + spec.durationMs; t += spec.intervalMs) {
    const common = { project: env.project, time: t, reporter: "SRC" as const, protocol: spec.protocol ?? 6 };
    book.add(
      TABLES.vpcFlows,
      vpcFlow(rng, { ...common, src: local, dest: remote, bytes: rng.int(...spec.bytesOut) }),
    );
    if (spec.bytesIn[1] > 0)
      book.add(
        TABLES.vpcFlows,
        vpcFlow(rng, {
          ...common,
          reporter: "DEST",
          src: remote,
          dest: local,
          bytes: rng.int(...spec.bytesIn),
        }),
      );
  }
}

/** Ordinary shoppers on a public web front end: 200s and the odd 404, through the load balancer. */
export function webTraffic(
  book: LogBook,
  env: Environment,
  rng: Rng,
  spec: {
    window: { start: number; end: number };
    count: number;
    backendService: string;
    forwardingRule: string;
    urlMap: string;
    host: string;
    backends: Vm[];
    clientIp: (rng: Rng) => string;
    policy: string;
  },
): void {
  const paths = ["/", "/search?q=boots", "/cart", "/product/19122", "/static/app.js", "/api/v1/stock/19122"];
  const agents = [
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
  ];
  for (let n = 0; n < spec.count; n++) {
    const time = spec.window.start + rng.next() * (spec.window.end - spec.window.start);
    const missing = rng.chance(0.04);
    book.add(
      TABLES.requests,
      lbRequest(rng, {
        project: env.project,
        time,
        backendService: spec.backendService,
        forwardingRule: spec.forwardingRule,
        urlMap: spec.urlMap,
        url: `https://${spec.host}${missing ? `/old/${rng.hex(6)}` : rng.pick(paths)}`,
        status: missing ? 404 : 200,
        remoteIp: spec.clientIp(rng),
        userAgent: rng.pick(agents),
        serverIp: rng.pick(spec.backends).ip,
        policy: { name: spec.policy, priority: 2147483647, action: "ALLOW" },
      }),
    );
  }
}

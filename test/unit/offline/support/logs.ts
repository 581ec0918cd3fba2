import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Synthetic rows laid out like a Cloud Logging → BigQuery sink (see
 * functions/src/sql/log-schema.ts), so the offline model's runbook calls and SQL run
 * against the real DuckDB warehouse in tests.
 */
export type Row = Record<string, unknown>;
export type Tables = Partial<Record<string, Row[]>>;

export function flow(o: {
  at: string;
  src: string;
  dest: string;
  port: number;
  bytes: number;
  srcVm?: string;
  destVm?: string;
}): Row {
  return {
    timestamp: o.at,
    logName: "projects/acme-prod/logs/compute.googleapis.com%2Fvpc_flows",
    jsonPayload: {
      connection: { src_ip: o.src, dest_ip: o.dest, src_port: 40000, dest_port: o.port, protocol: 6 },
      bytes_sent: String(o.bytes),
      packets_sent: "10",
      start_time: o.at,
      end_time: o.at,
      ...(o.srcVm
        ? {
            src_instance: {
              vm_name: o.srcVm,
              project_id: "acme-prod",
              zone: "europe-west1-b",
              region: "europe-west1",
            },
          }
        : {}),
      ...(o.destVm
        ? {
            dest_instance: {
              vm_name: o.destVm,
              project_id: "acme-prod",
              zone: "europe-west1-b",
              region: "europe-west1",
            },
          }
        : {}),
    },
  };
}

export function dns(o: {
  at: string;
  vm: string;
  name: string;
  answer?: string;
  rcode?: string;
  project?: string;
}): Row {
  return {
    timestamp: o.at,
    jsonPayload: {
      queryName: `${o.name}.`,
      queryType: "A",
      responseCode: o.rcode ?? "NOERROR",
      rdata: o.answer ? `${o.name}.\t300\tIN\ta\t${o.answer}` : "",
      sourceIP: "10.1.0.5",
      vmInstanceName: `${o.project ?? "acme-prod"}.${o.vm}`,
    },
  };
}

export function syslog(o: { at: string; vm: string; text: string }): Row {
  return { timestamp: o.at, textPayload: o.text, labels: { compute_googleapis_com_resource_name: o.vm } };
}

export function audit(o: {
  at: string;
  method: string;
  principal?: string;
  callerIp?: string;
  resource?: string;
  userAgent?: string;
  deltas?: { action: string; role: string; member: string }[];
  bucket?: string;
  request?: string;
  keyName?: string;
}): Row {
  return {
    timestamp: o.at,
    resource: o.bucket
      ? { type: "gcs_bucket", labels: { bucket_name: o.bucket, project_id: "acme-prod" } }
      : { type: "project", labels: { project_id: "acme-prod" } },
    protopayload_auditlog: {
      methodName: o.method,
      resourceName: o.resource ?? "projects/acme-prod",
      authenticationInfo: {
        ...(o.principal ? { principalEmail: o.principal } : {}),
        ...(o.keyName ? { serviceAccountKeyName: o.keyName } : {}),
      },
      requestMetadata: {
        callerIp: o.callerIp ?? "10.0.0.1",
        callerSuppliedUserAgent: o.userAgent ?? "google-cloud-sdk",
      },
      ...(o.request ? { requestJson: o.request } : {}),
      ...(o.deltas ? { servicedata_v1_iam: { policyDelta: { bindingDeltas: o.deltas } } } : {}),
    },
  };
}

/** Minutes after a base time, as ISO. */
export function at(base: string, minutes: number): string {
  return new Date(Date.parse(base) + minutes * 60_000).toISOString();
}

export function writeTables(tables: Tables): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "ferret-offline-"));
  for (const [name, rows] of Object.entries(tables)) {
    writeFileSync(join(dir, `${name}.jsonl`), `${(rows ?? []).map((r) => JSON.stringify(r)).join("\n")}\n`);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

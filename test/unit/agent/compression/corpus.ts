import type { JsonObject } from "../../../../functions/src/domain/json.js";
import type { Message, ToolCallRequest } from "../../../../functions/src/model/port.js";
import { renderPrompt } from "../../../../functions/src/prompts/render.js";
import { step } from "../../../fixtures/plans.js";
import { type SccFixtureName, sccFinding } from "../../../fixtures/scc.js";

/**
 * Step histories shaped like the executor's: the rendered executor.user task, then rounds
 * of tool calls and their responses (log_query rows from audit, VPC flow and DNS logs,
 * threat-intel verdicts). Generated from a seed so a failure reproduces, with indicators
 * of every kind spread through arguments, rows and free text.
 */
export interface CorpusHistory {
  name: string;
  messages: Message[];
}

/** mulberry32: tiny, seedable, good enough to vary test data. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FINDINGS: SccFixtureName[] = ["v1-cryptominer", "v2-cryptominer", "v1-iam-anomalous-grant"];
const TLDS = ["com", "net", "io", "ru", "xyz", "top", "cc", "info"];
const WORDS = [
  "pool",
  "mine",
  "xmr",
  "update",
  "cdn",
  "static",
  "relay",
  "sync",
  "drop",
  "panel",
  "c2",
  "beacon",
];
const PROJECTS = ["prod-web-4412", "shared-vpc-host", "data-lake-91", "ci-builds-7"];
const METHODS = [
  "google.iam.admin.v1.CreateServiceAccountKey",
  "SetIamPolicy",
  "v1.compute.instances.insert",
  "storage.objects.get",
  "google.iam.credentials.v1.GenerateAccessToken",
];

export function buildCorpus(size: number, seed = 20240514): CorpusHistory[] {
  return Array.from({ length: size }, (_, i) => buildHistory(i, seed + i * 7919));
}

function buildHistory(index: number, seed: number): CorpusHistory {
  const r = rng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)] as T;
  const hex = (n: number) =>
    Array.from({ length: n }, () => "0123456789abcdef"[Math.floor(r() * 16)]).join("");
  const octet = () => 1 + Math.floor(r() * 222);
  const publicIp = () => `${pick([45, 91, 103, 185, 194, 203])}.${octet()}.${octet()}.${octet()}`;
  const domain = () => `${pick(WORDS)}-${hex(4)}.${pick(WORDS)}.${pick(TLDS)}`;
  const project = pick(PROJECTS);
  const sa = () =>
    `${pick(["ci-deployer", "backup-runner", "svc-etl", "tf-apply"])}-${hex(3)}@${project}.iam.gserviceaccount.com`;
  const human = () =>
    `${pick(["alice", "bob", "mallory", "oncall"])}.${hex(3)}@${pick(["example.com", "corp-mail.net"])}`;

  const finding = sccFinding(pick(FINDINGS));
  const theStep = step(`step-${index}`, {
    description: `Trace what ${finding.resource.name} did around ${finding.eventTime} and who was behind it`,
    tools: ["log_query", "threat_intel_lookup"],
  });
  const task = renderPrompt("executor.user", {
    objective: `Decide whether ${finding.category} on ${project} is malicious`,
    step: theStep,
    finding,
    priorResults: [],
  });
  const messages: Message[] = [{ role: "user", text: task }];
  const rounds = 3 + Math.floor(r() * 5);
  for (let round = 0; round < rounds; round++) {
    const ip = publicIp();
    const internal = `10.${octet()}.${octet()}.${octet()}`;
    const dom = domain();
    const url = `https://${domain()}/${pick(["dl", "payload", "x"])}/${hex(6)}.sh`;
    const sha = hex(64);
    const md5 = hex(32);
    const account = sa();
    const person = human();
    const calls: ToolCallRequest[] = [
      {
        id: `call-${round}-a`,
        name: "log_query",
        args: {
          runbook: pick(["audit_by_principal", "vpc_flows_to_ip", "dns_by_host"]),
          principal: account,
          ip,
        },
      },
      { id: `call-${round}-b`, name: "threat_intel_lookup", args: { indicator: dom } },
    ];
    const rows: JsonObject[] = Array.from({ length: 6 + Math.floor(r() * 10) }, (_, n) => ({
      timestamp: `2024-05-14T0${n % 10}:${String(10 + n).slice(-2)}:00Z`,
      protoPayload: {
        methodName: pick(METHODS),
        authenticationInfo: { principalEmail: n % 3 === 0 ? person : account },
        requestMetadata: {
          callerIp: n % 2 === 0 ? ip : internal,
          callerSuppliedUserAgent: "google-cloud-sdk gcloud/467.0.0",
        },
        resourceName: `projects/${project}/serviceAccounts/${account}/keys/${hex(40)}`,
      },
      jsonPayload: { connection: { src_ip: internal, dest_ip: ip, dest_port: 3333 }, query_name: `${dom}.` },
    }));
    messages.push({
      role: "model",
      ...(r() < 0.5 ? { text: `Checking ${account} activity and whether ${ip} is known.` } : {}),
      toolCalls: calls,
    });
    messages.push({
      role: "tool",
      responses: [
        {
          id: `call-${round}-a`,
          name: "log_query",
          response: {
            ok: true,
            summary: `${rows.length} rows: ${account} called ${pick(METHODS)} from ${ip}`,
            untrusted_data: { rows, nextPageToken: null },
          },
        },
        {
          id: `call-${round}-b`,
          name: "threat_intel_lookup",
          response: {
            ok: true,
            summary: `${dom} is listed (${pick(["cryptomining", "c2", "phishing"])})`,
            untrusted_data: {
              indicator: dom,
              related: {
                url,
                sha256: sha,
                md5,
                registrantEmail: `abuse-${hex(3)}@${domain()}`,
                resolvesTo: publicIp(),
              },
              member: `serviceAccount:${account}`,
              description: `Campaign infrastructure; sample ${sha} fetched from ${url}`,
            },
          },
        },
      ],
    });
  }
  return { name: `${finding.category} #${index}`, messages };
}

import { makeEnvironment, makeVm } from "./environment.js";
import type { Expected } from "./expected.js";
import { auditor, DAY, HOUR, MINUTE } from "./kit.js";
import { LogBook } from "./log-book.js";
import { addBackgroundNoise } from "./noise.js";
import { sccNotification } from "./notification.js";
import type { Rng } from "./prng.js";
import { type ScenarioDefinition, scenarioFiles } from "./scenario.js";
import { addFeedNoise, StixBundle } from "./stix.js";

const EVENT_TIME = "2025-10-22T14:06:51.733Z";
const VM_NAME = "web-3";
const AGENT =
  "google-cloud-sdk gcloud/489.0.0 command/gcloud.compute.instances.add-metadata invocation-id/3f0a";

/**
 * Event Threat Detection reports that an account added a startup script to a VM. The account
 * is the CI deployer, which sets the web VMs' startup script on every weekday release, from
 * the CI runner's address, with gcloud: the operator's documented deploy pattern, repeated
 * on 21 earlier days this month. Benign, corroborated by the principal's own history (the
 * same method on many earlier days, from the same address), not by its name.
 */
function build(rng: Rng): Map<string, string> {
  const T = Date.parse(EVENT_TIME);
  const web = [3, 1, 2].map((n, i) => makeVm(rng, { name: `web-${n}`, role: "web", host: 20 + i }));
  const target = web[0]!;
  const vms = [...web, makeVm(rng, { name: "etl-worker-1", role: "etl", host: 12 })];
  const env = makeEnvironment(rng, {
    projectId: "acme-web-prod",
    domain: "acme-retail.com",
    vms,
    buckets: ["acme-web-releases"],
  });
  const book = new LogBook();
  addBackgroundNoise(book, env, { start: T - 20 * HOUR, end: T + 5 * HOUR }, rng.fork("noise"));

  const signal = rng.fork("signal");
  const call = auditor(book, env, signal);
  const ci = env.serviceAccounts.ci;
  const setScript = (time: number, vm: (typeof web)[number], release: string) =>
    call(time, {
      principal: ci,
      callerIp: env.ciIps[0],
      userAgent: AGENT,
      serviceName: "compute.googleapis.com",
      methodName: "v1.compute.instances.setMetadata",
      resourceName: `projects/${env.project.id}/zones/${vm.zone}/instances/${vm.name}`,
      resource: { type: "gce_instance", labels: { instance_id: vm.id, zone: vm.zone } },
      permission: "compute.instances.setMetadata",
      request: {
        "@type": "type.googleapis.com/compute.instances.setMetadata",
        Metadata: { "Metadata Keys Added": ["startup-script"] },
        release,
      },
      operation: {
        id: `operation-${Math.round(time)}-${signal.hex(12)}`,
        producer: "compute.googleapis.com",
      },
    });
  let n = 0;
  for (let d = 30; d >= 1; d--) {
    if (d % 7 === 3 || d % 7 === 4) continue;
    const day = T - d * DAY + signal.int(-25, 25) * MINUTE;
    n += 1;
    for (const [i, vm] of web.entries()) setScript(day + i * 40_000, vm, `r2025.${200 + n}`);
  }
  for (const [i, vm] of web.entries()) setScript(T + (i - 0) * 40_000, vm, `r2025.${200 + n + 1}`);

  const notification = sccNotification(rng.fork("finding"), env, {
    source: "eventThreatDetection",
    category: "Persistence: Compute Engine Admin Added Startup Script",
    findingClass: "THREAT",
    severity: "MEDIUM",
    eventTime: EVENT_TIME,
    resource: {
      name: `//compute.googleapis.com/projects/${env.project.id}/zones/${target.zone}/instances/${target.id}`,
      type: "google.compute.Instance",
      displayName: VM_NAME,
    },
    description: "A principal added or changed the startup script of a Compute Engine instance.",
    finding: {
      sourceProperties: {
        detectionCategory: { ruleName: "gce_admin_added_startup_script" },
        properties: {
          instance: `projects/${env.project.id}/zones/${target.zone}/instances/${VM_NAME}`,
          metadataKeys: ["startup-script"],
        },
      },
      access: {
        principalEmail: ci,
        callerIp: env.ciIps[0],
        userAgent: AGENT,
        serviceName: "compute.googleapis.com",
        methodName: "v1.compute.instances.setMetadata",
      },
      mitreAttack: {
        primaryTactic: "PERSISTENCE",
        primaryTechniques: ["BOOT_OR_LOGON_INITIALIZATION_SCRIPTS"],
      },
    },
  });

  const intel = new StixBundle(rng.fork("intel"), "2025-10-01T00:00:00.000Z", "Ferret Demo Threat Feed");
  addFeedNoise(intel, rng.fork("intel-noise"), "2025-07-01T00:00:00.000Z", new Set(env.ciIps));

  const expected: Expected = {
    scenario: "startup-script-ci-pattern",
    category: "Persistence: Compute Engine Admin Added Startup Script",
    verdict: "benign",
    acceptableVerdicts: ["benign", "false_positive"],
    requiredIocs: [],
    requiredEvidence: [
      {
        id: "recurring",
        description: `the CI deployer set startup scripts on ${n} earlier days this month, the first 30 days before`,
        anyOf: [new Date(T - 30 * DAY).toISOString().slice(0, 10)],
      },
      { id: "ci-address", description: "from the CI runner's address", anyOf: [env.ciIps[0] ?? ""] },
    ],
    optionalEvidence: [{ id: "target", description: "the VM", anyOf: [VM_NAME] }],
    mitreTechniques: [],
    probes: [
      {
        runbook: "principal_history",
        params: { principal: ci, recent: new Date(T - 24 * HOUR).toISOString() },
        window: { hoursBefore: 24 * 31, hoursAfter: 6 },
        expect: ["v1.compute.instances.setMetadata", env.ciIps[0] ?? ""],
        why: "the deployer's month: the same method from the same addresses on most days",
      },
    ],
    story:
      `${ci} set the startup script of ${VM_NAME} (and web-1, web-2) at ${EVENT_TIME.slice(11, 16)} UTC from the CI runners with gcloud, ` +
      `as it did on ${n} earlier weekdays in the past month: the deploy pipeline's documented release step.`,
  };
  return scenarioFiles({ notification, intel, expected, logs: book });
}

export const startupScriptCiPattern: ScenarioDefinition = {
  name: "startup-script-ci-pattern",
  seed: "ferret/startup-script-ci-pattern/v1",
  build,
};

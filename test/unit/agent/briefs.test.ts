import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { BriefRole } from "../../../functions/src/agent/briefs.js";
import type { GenerateRequest, Model } from "../../../functions/src/model/port.js";
import { isRepairRequest } from "../../../functions/src/model/structured.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import { promptFor } from "../../helpers/brief-prompt.js";
import { investigate } from "../offline/support/harness.js";
import { openScenario } from "../offline/support/tools.js";

/**
 * A role's prompt is rendered from its brief alone (decision 0042): the text an LLM reads and
 * the brief the offline model reads cannot disagree. Checked on every request of whole offline
 * investigations: the system text, and the first message, are the brief's rendering.
 */
function recording(inner: Model, requests: GenerateRequest[]): Model {
  return {
    name: inner.name,
    offline: inner.offline,
    embed: (request) => inner.embed(request),
    generate: (request) => {
      requests.push(structuredClone({ ...request, signal: undefined }));
      return inner.generate(request);
    },
  };
}

/** The bundled scenarios that take every agent role through the model, the step executor included. */
const SCENARIOS = [
  "vmtd-rootkit-stale-logs",
  "bad-domain-sinkhole",
  "ssh-brute-force",
  "log4j-blocked-probe",
];

describe("briefs: each request's text is its brief's rendering", () => {
  it("on whole offline investigations: planner, step executor, reflector and concluder", async () => {
    const requests: GenerateRequest[] = [];
    for (const name of SCENARIOS) {
      const dir = join("examples/scenarios", name);
      const { finding, tools } = await openScenario(dir);
      try {
        await investigate(finding, tools, { model: recording(createOfflineModel(), requests) });
      } finally {
        await tools.close();
      }
    }
    const roles = new Set<BriefRole>(requests.map((r) => r.brief.role));
    for (const role of ["planner", "executor", "reflector", "concluder"] as const)
      assert.ok(roles.has(role), `no ${role} request was made: the check would not cover it`);
    for (const request of requests) {
      const rendered = promptFor(request.brief);
      assert.equal(request.system, rendered.system, `${request.brief.role}: system text`);
      assert.deepEqual(
        request.messages[0],
        { role: "user", text: rendered.user },
        `${request.brief.role}${isRepairRequest(request) ? " (repair)" : ""}: first message`,
      );
    }
  });
});

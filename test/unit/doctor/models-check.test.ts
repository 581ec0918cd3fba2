import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkModels } from "../../../functions/src/doctor/checks.js";
import type { DeploymentInventory } from "../../../functions/src/doctor/inventory.js";

/** An inventory holding one function with these model variables; nothing else is asked. */
function deployedWith(env: Record<string, string>): DeploymentInventory {
  const none = async () => {
    throw new Error("not asked by the model check");
  };
  return {
    enabledApis: none,
    projectRoles: none,
    secretHasVersion: none,
    firestoreIndexes: none,
    sccNotificationTopic: none,
    functions: async () => [{ name: "ferret-planner", state: "ACTIVE", env, secretEnv: [] }],
  };
}

const target = { projectId: "p", region: "us-central1" };
const today = new Date("2026-12-07T00:00:00Z");

describe("doctor: Gemini models (issue 36)", () => {
  it("refuses an id ferret cannot place, with the reason and the function that uses it", async () => {
    const result = await checkModels(
      deployedWith({ FERRET_GEMINI_MODEL: "gemini-9-imaginary" }),
      target,
      today,
    );
    assert.equal(result.ok, false);
    assert.match(
      result.lines.join("\n"),
      /gemini-9-imaginary is not a Gemini model ferret knows.*\(used by ferret-planner\)/,
    );
  });

  it("refuses an unknown embedding id apart from generation ids", async () => {
    const result = await checkModels(
      deployedWith({ FERRET_GEMINI_EMBEDDING_MODEL: "gemini-3.8-flash" }),
      target,
      today,
    );
    assert.equal(result.ok, false);
    assert.match(result.lines.join("\n"), /not an embedding model ferret knows/);
  });

  it("passes the defaults and an alias, and flags a deprecated id answered by another model", async () => {
    const ok = await checkModels(
      deployedWith({
        FERRET_GEMINI_MODEL: "gemini-flash-latest",
        FERRET_GEMINI_LITE_MODEL: "gemini-3.1-flash-lite",
        FERRET_GEMINI_EMBEDDING_MODEL: "gemini-embedding-001",
      }),
      target,
      today,
    );
    assert.equal(ok.ok, true, ok.lines.join("\n"));
    const routed = await checkModels(
      deployedWith({ FERRET_GEMINI_MODEL: "gemini-3.5-flash" }),
      target,
      today,
    );
    assert.equal(routed.ok, false);
    assert.match(routed.lines.join("\n"), /answers its requests with gemini-3\.6-flash/);
  });
});

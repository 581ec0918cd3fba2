import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { podOwners, workloadOwners } from "../../../functions/src/offline-model/workload-owners.js";

/**
 * A GKE workload's controllers read from what the finding names (decision 0053): the objects
 * themselves, and each pod's owners from the suffixes Kubernetes generates for its name.
 */
const ALPHABET = "bcdfghjklmnpqrstvwxz2456789".split("");
const generated = (min: number, max: number) =>
  fc.array(fc.constantFrom(...ALPHABET), { minLength: min, maxLength: max }).map((cs) => cs.join(""));
/** A segment a person wrote: it holds a vowel (or a 0, 1, 3), which the generated alphabet never does. */
const word = fc
  .tuple(fc.stringMatching(/^[a-z0-9]{0,6}$/), fc.constantFrom("a", "e", "i", "o", "u", "0", "1", "3"))
  .map(([w, v]) => `${w}${v}`);
const ownerName = fc.array(word, { minLength: 1, maxLength: 3 }).map((ws) => ws.join("-"));

describe("pod owners from the pod's name", () => {
  it("a Deployment's pod gives its Deployment, then its ReplicaSet; a DaemonSet's pod its DaemonSet", () => {
    assert.deepEqual(podOwners("payments-api-7d9f8-2xkqp"), ["payments-api", "payments-api-7d9f8"]);
    assert.deepEqual(podOwners("node-exporter-7xk2p"), ["node-exporter"]);
  });

  it("a name without a generated suffix gives nothing (a bare pod, a StatefulSet's ordinal)", () => {
    assert.deepEqual(podOwners("debug"), []);
    assert.deepEqual(podOwners("postgres-0"), []);
    assert.deepEqual(podOwners("web-frontend"), [], "a word is not a generated suffix");
  });

  it("property: <owner>-<hash>-<suffix> gives the owner and its ReplicaSet; <owner>-<suffix> gives the owner", () => {
    fc.assert(
      fc.property(ownerName, generated(1, 10), generated(5, 5), (owner, hash, suffix) => {
        assert.deepEqual(podOwners(`${owner}-${hash}-${suffix}`), [owner, `${owner}-${hash}`]);
        assert.deepEqual(podOwners(`${owner}-${suffix}`), [owner]);
      }),
    );
  });

  it("property: a last segment that is not five generated characters gives no owner", () => {
    fc.assert(
      fc.property(ownerName, fc.oneof(word, generated(1, 4), generated(6, 9)), (owner, last) => {
        assert.deepEqual(podOwners(`${owner}-${last}`), []);
      }),
    );
  });

  it("reads the finding's named objects first, then its pods' owners, without repeats", () => {
    const details = {
      kubernetes: {
        objects: [{ kind: "DaemonSet", ns: "monitoring", name: "node-exporter" }],
        pods: [{ ns: "monitoring", name: "node-exporter-7xk2p" }],
      },
    };
    assert.deepEqual(workloadOwners(details), ["node-exporter"]);
    assert.deepEqual(workloadOwners({}), []);
    assert.deepEqual(workloadOwners({ kubernetes: "not an object" }), []);
  });
});

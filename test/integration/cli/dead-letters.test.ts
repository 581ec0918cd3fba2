import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ensureEmulators, uniqueProjectId } from "../../helpers/emulators.js";

const projectId = uniqueProjectId("dead-letter-watch");

/** What the CLI watches so it can say at once that ingest gave up on its notification. */
describe("watchDeadLetters on the Pub/Sub emulator", { timeout: 120_000 }, () => {
  let m: {
    pubsub: typeof import("../../../functions/src/adapters/pubsub/client.js");
    topology: typeof import("../../../functions/src/local/pubsub-setup.js");
    watch: typeof import("../../../functions/src/local/dead-letters.js");
    topics: typeof import("../../../functions/src/platform/topics.js");
  };
  let client: ReturnType<(typeof m)["pubsub"]["createPubSub"]> | undefined;

  before(async () => {
    await ensureEmulators();
    m = {
      pubsub: await import("../../../functions/src/adapters/pubsub/client.js"),
      topology: await import("../../../functions/src/local/pubsub-setup.js"),
      watch: await import("../../../functions/src/local/dead-letters.js"),
      topics: await import("../../../functions/src/platform/topics.js"),
    };
    await m.topology.ensureTopology(projectId, { pushEndpoints: {}, maxDeliveryAttempts: 5 });
    client = m.pubsub.createPubSub({ projectId });
  });

  after(async () => {
    await client?.close();
  });

  it("reports ferret's dead letters with their reason, and Pub/Sub's forwarded originals", async () => {
    const { TOPICS, deadLetterTopic } = m.topics;
    const watch = m.watch.watchDeadLetters(client!, m.topology.deadLetterSubscriptionName(TOPICS.findings));
    try {
      const topic = client!.topic(deadLetterTopic(TOPICS.findings));
      await topic.publishMessage({
        json: {
          reason:
            "invalid_input: the message is refused: finding.sourceProperties.deep: nested deeper than 64 levels",
          sourceTopic: TOPICS.findings,
          originalMessageId: "m-1",
          originalData: "",
        },
      });
      await topic.publishMessage({ json: { finding: { name: "organizations/1/sources/2/findings/f" } } });
      for (let waited = 0; watch.received().length < 2 && waited < 30_000; waited += 100) await sleep(100);
      const letters = [...watch.received()].sort((a, b) => a.reason.localeCompare(b.reason));
      assert.equal(letters.length, 2);
      assert.deepEqual(letters[0], {
        reason:
          "invalid_input: the message is refused: finding.sourceProperties.deep: nested deeper than 64 levels",
        originalMessageId: "m-1",
      });
      assert.match(letters[1]?.reason ?? "", /^Pub\/Sub gave up after .* delivery attempts/);
    } finally {
      await watch.close();
    }
  });
});

import { PubSub } from "@google-cloud/pubsub";

/**
 * The one place a Pub/Sub client is constructed. The library switches to the emulator
 * (plain-text gRPC, no credentials) by itself when PUBSUB_EMULATOR_HOST is set.
 */
export function createPubSub(config: { projectId: string }): PubSub {
  return new PubSub({ projectId: config.projectId });
}

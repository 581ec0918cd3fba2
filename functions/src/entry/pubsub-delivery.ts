import type { CloudEvent } from "@google-cloud/functions-framework";
import type { z } from "zod";
import { InvalidInputError } from "../domain/errors.js";
import type { TopicName } from "../platform/topics.js";
import { inInvestigationSpan } from "../platform/tracing.js";
import type { PubSubRoleDefinition } from "../roles/role.js";
import { decodePubSubJson } from "./pubsub-message.js";
import { settle } from "./pubsub-settle.js";
import type { Runtime } from "./runtime.js";

/**
 * One push delivery to a Pub/Sub role: the message is decoded and parsed by the role's
 * schema, and the role runs. settle() decides what a failure means: a malformed message
 * (InvalidInputError and every other non-retryable FerretError) is dead-lettered with its
 * reason, a retryable one is redelivered.
 */
export async function deliver<Name extends string, Msg extends z.ZodType>(
  topic: TopicName,
  definition: () => Promise<PubSubRoleDefinition<Name, Msg>>,
  event: CloudEvent<unknown>,
  runtime: () => Promise<Runtime>,
): Promise<void> {
  const role = await definition();
  const rt = await runtime();
  // Loaded after the runtime: it reads the configuration and the model choice, which the
  // runtime build has loaded by then, so the cold import does not carry them.
  const { appDepsFor, ingestDepsFor } = await import("./runtime.js");
  await settle(rt, topic, event, async () => {
    const { json, messageId } = decodePubSubJson(event.data);
    const parsed = role.message.safeParse(json);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      throw new InvalidInputError(
        `not ${role.what}: ${first ? `${first.path.map(String).join(".") || "(root)"}: ${first.message}` : "invalid"}`,
      );
    }
    const handle = () =>
      role.run(parsed.data, {
        runtime: rt,
        messageId,
        ingestDeps: () => ingestDepsFor(rt),
        appDepsFor: async (investigationId) => appDepsFor(rt, await rt.store.get(investigationId)),
      });
    // A message about one investigation is a span of its trace (platform/tracing.ts).
    const investigationId = investigationOf(parsed.data);
    if (investigationId)
      await inInvestigationSpan(
        investigationId,
        `${role.name}.handle_message`,
        { "ferret.role": role.name },
        handle,
      );
    else await handle();
  });
}

function investigationOf(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null || !("investigationId" in message)) return undefined;
  const id = message.investigationId;
  return typeof id === "string" ? id : undefined;
}

import { z } from "zod";
import { InvalidInputError } from "../domain/errors.js";
import { assertJsonBounds } from "../domain/json.js";

/** The CloudEvent data of a Pub/Sub-triggered function (Eventarc, or the framework's push conversion). */
export const PubSubEventDataSchema = z.object({
  message: z.object({
    data: z.string().optional(),
    attributes: z.record(z.string(), z.string()).optional(),
    messageId: z.string().optional(),
    publishTime: z.string().optional(),
  }),
  subscription: z.string().optional(),
});
export type PubSubEventData = z.infer<typeof PubSubEventDataSchema>;

/** Pub/Sub messages are capped at 10 MB; SCC notifications are far smaller, so cap well below. */
export const MAX_MESSAGE_BYTES = 1_000_000;

export interface DecodedMessage {
  json: unknown;
  messageId: string | undefined;
  rawBase64: string;
}

/** Decodes base64 JSON, with InvalidInputError naming what was wrong. */
export function decodePubSubJson(data: unknown): DecodedMessage {
  const envelope = PubSubEventDataSchema.safeParse(data);
  if (!envelope.success) throw new InvalidInputError("the event is not a Pub/Sub message envelope");
  const raw = envelope.data.message.data ?? "";
  const messageId = envelope.data.message.messageId;
  if (raw.length === 0) throw new InvalidInputError("the Pub/Sub message has no data");
  const bytes = Buffer.from(raw, "base64");
  if (bytes.length > MAX_MESSAGE_BYTES) {
    throw new InvalidInputError(
      `the message is ${bytes.length} bytes; at most ${MAX_MESSAGE_BYTES} are accepted`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new InvalidInputError("the message data is not valid JSON");
  }
  // Before any handler recurses into it: a stack overflow would be retried, this is dead-lettered.
  assertJsonBounds(json, "the message");
  return { json, messageId, rawBase64: raw };
}

import { z } from "zod";
import { JsonObjectSchema } from "../domain/json.js";
import type { Message, ToolCallRequest, ToolResponse } from "./port.js";

/**
 * Zod mirror of the Message union in port.ts, for conversation histories read back from
 * storage: a stored history is outside data until it validates.
 */
export const ToolCallRequestSchema: z.ZodType<ToolCallRequest> = z.object({
  id: z.string(),
  name: z.string(),
  args: JsonObjectSchema,
  signature: z.string().max(1_000_000).optional(),
});

export const ToolResponseSchema: z.ZodType<ToolResponse> = z.object({
  id: z.string(),
  name: z.string(),
  response: JsonObjectSchema,
});

export const MessageSchema: z.ZodType<Message> = z.discriminatedUnion("role", [
  z.object({ role: z.literal("user"), text: z.string() }),
  z.object({
    role: z.literal("model"),
    text: z.string().optional(),
    toolCalls: z.array(ToolCallRequestSchema).optional(),
  }),
  z.object({ role: z.literal("tool"), responses: z.array(ToolResponseSchema) }),
]);

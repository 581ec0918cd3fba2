import { z } from "zod";
import { MAX_CLAIM_CHARS } from "./memory.js";

/** New claims kept per session; a session that "learned" more is summarizing, not learning. */
export const MAX_NEW_CLAIMS = 8;

/** What the introspector model must answer. Ids are checked against the session afterwards. */
export const IntrospectionSchema = z.object({
  claims: z
    .array(z.string().min(1).max(MAX_CLAIM_CHARS))
    .max(MAX_NEW_CLAIMS)
    .describe("New reusable facts about the log tables and their data, one self-contained sentence each."),
  helpfulMemoryIds: z
    .array(z.string())
    .max(100)
    .describe("Ids of provided memories that were used and helped reach a correct result."),
  harmfulMemoryIds: z
    .array(z.string())
    .max(100)
    .describe("Ids of provided memories that were wrong and caused an error or wasted work."),
});
export type Introspection = z.infer<typeof IntrospectionSchema>;

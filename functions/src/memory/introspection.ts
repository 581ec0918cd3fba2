import { z } from "zod";
import { MemoryFactSchema } from "./fact.js";

/** New facts kept per session; a session that "learned" more is summarizing, not learning. */
export const MAX_NEW_FACTS = 8;

/**
 * What the introspector model must answer. New knowledge is typed facts only (fact.ts): the
 * response schema has no text field, so a model persuaded by its data that something is
 * benign has nowhere to write it. Ids are checked against the session afterwards.
 */
export const IntrospectionSchema = z.object({
  facts: z
    .array(MemoryFactSchema)
    .max(MAX_NEW_FACTS)
    .describe(
      "New reusable facts about the log tables the session established: column formats and filter shapes that ran.",
    ),
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

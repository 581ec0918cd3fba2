import { readFileSync } from "node:fs";
import { z } from "zod";
import { VerdictSchema } from "../domain/conclusion.js";
import { InvalidInputError } from "../domain/errors.js";
import { IocTypeSchema } from "../domain/ioc.js";

/** The parts of a scenario's expected.json that scoring reads (docs/scenario-format.md). */
export const ExpectedSchema = z.looseObject({
  verdict: VerdictSchema,
  acceptableVerdicts: z.array(VerdictSchema).optional(),
  requiredIocs: z.array(z.looseObject({ type: IocTypeSchema, value: z.string().min(1) })).default([]),
  requiredEvidence: z
    .array(
      z.looseObject({ id: z.string(), description: z.string(), anyOf: z.array(z.string().min(1)).min(1) }),
    )
    .default([]),
});
export type Expected = z.infer<typeof ExpectedSchema>;

export function loadExpected(path: string): Expected {
  const parsed = ExpectedSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success)
    throw new InvalidInputError(`${path} is not a valid expected.json: ${parsed.error.message}`);
  return parsed.data;
}

import { z } from "zod";
import { NextActionSchema } from "../domain/next-action.js";
import { InvestigationRefSchema, workflowRole } from "./role.js";

/** Reflects on a finished wave of steps and decides the next action (app/reflector.ts). */
export const reflector = workflowRole({
  name: "reflector",
  urlEnv: "FERRET_REFLECTOR_URL",
  needs: { tools: true, chat: false },
  request: InvestigationRefSchema.extend({
    wave: z.number().int().min(1).max(1_000),
    stepIds: z.array(z.string().min(1).max(40)).max(50),
  }),
  response: z.object({ next: NextActionSchema }),
  load: () => import("../app/reflector.js"),
  run: async ({ runReflector }, input, deps) => ({
    next: await runReflector(input.investigationId, input.wave, input.stepIds, deps),
  }),
  logged: (answer) => ({ next: answer.next.kind }),
});

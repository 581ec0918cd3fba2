import { z } from "zod";
import { runReflector } from "../app/reflector.js";
import { NextActionSchema } from "../domain/next-action.js";
import { workflowRoleDefinition } from "./role.js";
import { InvestigationRefSchema } from "./workflow-requests.js";

/** Reflects on a finished wave of steps and decides the next action (app/reflector.ts). */
export const reflector = workflowRoleDefinition({
  name: "reflector",
  needs: { tools: true, chat: false },
  request: InvestigationRefSchema.extend({
    wave: z.number().int().min(1).max(1_000),
    stepIds: z.array(z.string().min(1).max(40)).max(50),
  }),
  response: z.object({ next: NextActionSchema }),
  run: async (input, deps) => ({
    next: await runReflector(input.investigationId, input.wave, input.stepIds, deps),
  }),
  logged: (answer) => ({ next: answer.next.kind }),
});

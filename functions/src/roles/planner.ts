import { z } from "zod";
import { runPlanner } from "../app/planner.js";
import { NextActionSchema } from "../domain/next-action.js";
import { workflowRoleDefinition } from "./role.js";
import { InvestigationRefSchema } from "./workflow-requests.js";

/** Writes the investigation's plan and says what runs first (app/planner.ts, agent/planner.ts). */
export const planner = workflowRoleDefinition({
  name: "planner",
  needs: { tools: true, chat: false },
  request: InvestigationRefSchema,
  response: z.object({ next: NextActionSchema }),
  run: async (input, deps) => ({ next: await runPlanner(input.investigationId, deps) }),
  logged: (answer) => ({ next: answer.next.kind }),
});

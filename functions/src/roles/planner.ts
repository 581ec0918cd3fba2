import { z } from "zod";
import { NextActionSchema } from "../domain/next-action.js";
import { InvestigationRefSchema, workflowRole } from "./role.js";

/** Writes the investigation's plan and says what runs first (app/planner.ts, agent/planner.ts). */
export const planner = workflowRole({
  name: "planner",
  urlEnv: "FERRET_PLANNER_URL",
  needs: { tools: true, chat: false },
  request: InvestigationRefSchema,
  response: z.object({ next: NextActionSchema }),
  load: () => import("../app/planner.js"),
  run: async ({ runPlanner }, input, deps) => ({ next: await runPlanner(input.investigationId, deps) }),
  logged: (answer) => ({ next: answer.next.kind }),
});

import type { z } from "zod";
import { runPlanner } from "../app/planner.js";
import type { InvestigationRefSchema } from "./http-requests.js";
import type { Operation } from "./workflow-call.js";

export const plannerOperation: Operation<z.infer<typeof InvestigationRefSchema>> = async (input, deps) => ({
  next: await runPlanner(input.investigationId, deps),
});

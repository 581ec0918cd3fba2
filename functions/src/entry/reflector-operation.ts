import type { z } from "zod";
import { runReflector } from "../app/reflector.js";
import type { ReflectorRequestSchema } from "./http-requests.js";
import type { Operation } from "./workflow-call.js";

export const reflectorOperation: Operation<z.infer<typeof ReflectorRequestSchema>> = async (input, deps) => ({
  next: await runReflector(input.investigationId, input.wave, input.stepIds, deps),
});

import { z } from "zod";

/**
 * Agent budgets and cadence. Lives in the domain because the pure decision function
 * reads it; config.ts embeds it and fills it from the file and FERRET_* variables.
 */
/**
 * What a step's planned tool calls do: `run` runs them without a step executor model round;
 * `executor` hands every step to the step executor model, as the naive plan-execute loop does
 * (the bench's baseline, and tests of the step executor's own budgets).
 */
export const PlannedCallsModeSchema = z.enum(["run", "executor"]);
export type PlannedCallsMode = z.infer<typeof PlannedCallsModeSchema>;

export const ReflectionModeSchema = z.enum(["every_step", "every_wave", "on_error"]);
export type ReflectionMode = z.infer<typeof ReflectionModeSchema>;

export const AgentPolicySchema = z.object({
  /** Most steps a plan may hold, cancelled ones included (they stay in the plan). */
  maxSteps: z.number().int().min(1).max(50).default(10),
  /**
   * Most steps in one wave that need the step executor model; steps whose planned calls run
   * without one join the wave beside them (decision 0053). 1, with reflection after every step,
   * gives the sequential plan-execute-reflect loop.
   */
  maxParallelSteps: z.number().int().min(1).max(16).default(4),
  /** Tool-calling iterations inside one step. */
  maxStepIterations: z.number().int().min(1).max(32).default(6),
  /**
   * Tool calls run from one model turn of a step; more are refused with a message to the
   * model. Bounds the fan-out of one turn (each log_analysis call is a sub-agent session).
   */
  maxToolCallsPerTurn: z.number().int().min(1).max(16).default(4),
  /** Reflections that may change the plan. */
  maxRevisions: z.number().int().min(0).max(20).default(3),
  maxConsecutiveFailures: z.number().int().min(1).max(20).default(3),
  reflection: ReflectionModeSchema.default("every_wave"),
  plannedCalls: PlannedCallsModeSchema.default("run"),
  /**
   * With no step left to run and every step of the last wave answered, conclude without a
   * last reflection (decision 0026); false asks the reflector anyway, so it may add steps.
   */
  foldLastReflection: z.boolean().default(true),
  /** Input + output tokens across every model call of one investigation. */
  tokenBudget: z.number().int().min(1_000).default(400_000),
  stepDeadlineSeconds: z.number().int().min(5).max(3_600).default(300),
  totalDeadlineSeconds: z.number().int().min(30).max(86_400).default(1_800),
});
export type AgentPolicy = z.infer<typeof AgentPolicySchema>;

export const DEFAULT_POLICY: AgentPolicy = AgentPolicySchema.parse({});

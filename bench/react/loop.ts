import type { StepExecutorBrief } from "../../functions/src/agent/briefs.js";
import { recordedCall } from "../../functions/src/agent/step-calls.js";
import { type ConclusionDraft, ConclusionDraftSchema } from "../../functions/src/domain/conclusion.js";
import { errorMessage } from "../../functions/src/domain/errors.js";
import type { Finding } from "../../functions/src/domain/finding/finding.js";
import type { ToolCall } from "../../functions/src/domain/results.js";
import type { Message, Model, ToolResponse } from "../../functions/src/model/port.js";
import type { Logger } from "../../functions/src/platform/logger.js";
import { renderPrompt } from "../../functions/src/prompts/render.js";
import type { ToolBox } from "../../functions/src/tools/toolbox.js";
import type { ReactContext } from "./context.js";

/**
 * The bench's third column: a ReAct-style single loop (Yao et al., "ReAct: Synergizing
 * Reasoning and Acting in Language Models"): one agent, one conversation, every tool offered
 * on every turn, no plan, no reflection, no per-step summary. Each turn is one model call
 * that reads the whole conversation so far and either calls tools or gives the final answer.
 * A comparison agent only; nothing in production runs it.
 */
export interface ReactInput {
  investigationId: string;
  finding: Finding;
  model: Model;
  toolbox: ToolBox;
  tables: string[];
  maxTurns: number;
  /** Passed to the offline brain (the same caps ferret's planner and executor get). */
  maxSteps: number;
  maxIterationsPerLine: number;
  logger: Logger;
  /** Called with each turn's facts before its model call (the offline brain reasons over them). */
  onTurn?: (context: ReactContext) => void;
}

export interface ReactOutcome {
  status: "concluded" | "failed";
  conclusion?: ConclusionDraft;
  /** Model calls made (one per turn). */
  turns: number;
  toolCalls: ToolCall[];
  reason?: string;
}

export async function runReact(input: ReactInput): Promise<ReactOutcome> {
  const tools = input.toolbox.names();
  const declarations = input.toolbox.declarationsFor(tools);
  const system = renderPrompt("react.system", { maxTurns: input.maxTurns });
  const messages: Message[] = [
    {
      role: "user",
      text: renderPrompt("react.user", { finding: input.finding, tools, tables: input.tables }),
    },
  ];
  const calls: ReactContext["calls"] = [];
  for (let turn = 1; turn <= input.maxTurns; turn++) {
    const context: ReactContext = {
      finding: input.finding,
      tools,
      tables: input.tables,
      maxSteps: input.maxSteps,
      maxIterationsPerLine: input.maxIterationsPerLine,
      calls: [...calls],
    };
    input.onTurn?.(context);
    const response = await input.model.generate({
      brief: reactBrief(input, tools, turn),
      system,
      messages: [...messages],
      tools: declarations,
      investigationId: input.investigationId,
    });
    if (response.toolCalls.length === 0) {
      const toolCalls = calls.map((c) => c.call);
      const parsed = parseConclusion(response.text);
      return parsed.ok
        ? { status: "concluded", conclusion: parsed.value, turns: turn, toolCalls }
        : { status: "failed", turns: turn, toolCalls, reason: parsed.reason };
    }
    messages.push({
      role: "model",
      ...(response.text ? { text: response.text } : {}),
      toolCalls: response.toolCalls,
    });
    const responses = await Promise.all(
      response.toolCalls.map(async (request): Promise<ToolResponse> => {
        const started = Date.now();
        const outcome = await input.toolbox.run(request.name, request.args, tools, {
          investigationId: input.investigationId,
          finding: input.finding,
          logger: input.logger.child({ tool: request.name }),
          stepId: "react",
          toolCallId: request.id,
        });
        const { record, response: answer } = recordedCall(request, outcome, started);
        calls.push({ call: record, iocs: outcome.iocs ?? [] });
        return answer;
      }),
    );
    messages.push({ role: "tool", responses });
  }
  return {
    status: "failed",
    turns: input.maxTurns,
    toolCalls: calls.map((c) => c.call),
    reason: `no final answer within ${input.maxTurns} turns`,
  };
}

/**
 * The ReAct agent is one executor with every tool, the closest of ferret's roles: its requests
 * are briefed as one step ("react") whose rounds are the loop's turns, so meters and the
 * simulated provider count them under the executor.
 */
function reactBrief(input: ReactInput, tools: string[], turn: number): StepExecutorBrief {
  return {
    role: "executor",
    finding: input.finding,
    objective: "Decide whether the finding is a true positive, using any tool.",
    step: {
      id: "react",
      description: "Investigate the finding with every tool until the verdict is clear.",
      tools,
      expected: "A verdict with its evidence.",
      dependsOn: [],
      status: "running",
      addedInRevision: 0,
    },
    priorResults: [],
    iteration: turn,
    maxIterations: input.maxTurns,
    finalReportOnly: false,
  };
}

type Parsed = { ok: true; value: ConclusionDraft } | { ok: false; reason: string };

/** The final answer: one JSON object matching the conclusion schema, nothing else. */
export function parseConclusion(text: string | undefined): Parsed {
  if (!text?.trim()) return { ok: false, reason: "the final answer is empty" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `the final answer is not JSON: ${errorMessage(error)}` };
  }
  const checked = ConclusionDraftSchema.safeParse(value);
  if (!checked.success) {
    const issues = checked.error.issues.map((i) => `${i.path.join(".") || "(answer)"}: ${i.message}`);
    return { ok: false, reason: `the final answer breaks the conclusion schema: ${issues.join("; ")}` };
  }
  return { ok: true, value: checked.data };
}

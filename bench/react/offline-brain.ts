import type { StepExecutorBrief } from "../../functions/src/agent/briefs.js";
import { summarizeResults } from "../../functions/src/agent/result-summary.js";
import { ModelOutputError } from "../../functions/src/domain/errors.js";
import { mergeIocs } from "../../functions/src/domain/ioc.js";
import type { Plan, Step } from "../../functions/src/domain/plan.js";
import type { StepReport, StepResult } from "../../functions/src/domain/results.js";
import { hashEmbedding } from "../../functions/src/model/hash-embedding.js";
import type {
  EmbedRequest,
  GenerateRequest,
  GenerateResponse,
  Message,
  Model,
  ToolCallRequest,
  ToolDeclaration,
} from "../../functions/src/model/port.js";
import { estimateInputTokens, estimateOutputTokens } from "../../functions/src/model/tokens.js";
import { conclusionFor } from "../../functions/src/offline-model/concluder/index.js";
import { planFor } from "../../functions/src/offline-model/planner.js";
import { stepExecutorAnswer } from "../../functions/src/offline-model/step-executor/index.js";
import type { ReactContext } from "./context.js";

/**
 * The offline playbook model's rules, driving the ReAct loop. The offline model has no rules
 * for an agent without a plan, so this brain gives the ReAct agent the same knowledge ferret's
 * offline roles have, spent the ReAct way: its lines of inquiry are the category playbook's
 * (what ferret's offline planner would write, worked out in the agent's head, not a model
 * call); each turn it looks at the conversation, finds the first line not finished, and asks
 * the offline executor's rules for that line's next tool calls; a finished line costs no
 * turn of its own (no per-step summary call); when every line is done, the final answer is
 * the offline concluder's verdict over what the tools returned. No reflection: every line
 * runs. Like the offline model, it never reads prompt text, and its token counts are the
 * same estimate over the whole request, which in a single loop is the whole conversation.
 */
export class OfflineReactBrain implements Model {
  readonly name = "offline-playbook-react";
  readonly offline = true;

  private turn: ReactContext | undefined;

  /** The loop's facts for the coming turn (ReactInput.onTurn); used by the next generate call only. */
  observe(context: ReactContext): void {
    this.turn = context;
  }

  async generate(request: GenerateRequest): Promise<GenerateResponse> {
    const context = this.turn;
    this.turn = undefined;
    if (!context)
      throw new ModelOutputError(
        `${this.name} answers only the bench's ReAct loop, which hands it each turn's facts first`,
        { role: request.brief.role },
      );
    const answer = decide(context, request.messages, request.tools ?? []);
    const text = "text" in answer ? answer.text : undefined;
    const toolCalls = "toolCalls" in answer ? answer.toolCalls : [];
    return {
      ...(text !== undefined ? { text } : {}),
      toolCalls,
      usage: {
        llmCalls: 1,
        inputTokens: estimateInputTokens(request),
        outputTokens: estimateOutputTokens({ text, toolCalls }),
      },
      model: this.name,
      finishReason: "STOP",
    };
  }

  async embed(request: EmbedRequest): Promise<number[][]> {
    return request.texts.map((text) => hashEmbedding(text, request.dimensions));
  }
}

type Answer = { text: string } | { toolCalls: ToolCallRequest[] };

function decide(
  context: ReactContext,
  messages: readonly Message[],
  tools: readonly ToolDeclaration[],
): Answer {
  const plan = linesOfInquiry(context);
  const done: StepResult[] = [];
  for (const step of plan.steps) {
    const own = messagesOf(step.id, messages);
    const rounds = own.filter((m) => m.role === "model").length;
    const stepBrief: StepExecutorBrief = {
      role: "executor",
      finding: context.finding,
      objective: plan.objective,
      step,
      priorResults: summarizeResults(plan, done),
      iteration: rounds + 1,
      maxIterations: context.maxIterationsPerLine,
      finalReportOnly: false,
    };
    const answer = stepExecutorAnswer({
      brief: stepBrief,
      messages: own,
      tools,
      reportOnly: false,
    });
    if (answer.kind === "calls") return { toolCalls: answer.calls };
    done.push(resultOf(step, answer.report, context, rounds));
  }
  const conclusion = conclusionFor({
    role: "concluder",
    finding: context.finding,
    plan: { ...plan, steps: plan.steps.map((s) => ({ ...s, status: "done" })) },
    results: done,
    reflections: [],
    mode: "conclude",
    reason: "every line of inquiry is done",
  });
  return { text: JSON.stringify(conclusion) };
}

/** The playbook ferret's offline planner would write for this finding, as the agent's private agenda. */
function linesOfInquiry(context: ReactContext): Plan {
  const draft = planFor({
    role: "planner",
    finding: context.finding,
    // The playbooks match tools and tables by name; descriptions are for an LLM's prompt.
    tools: context.tools.map((name) => ({ name, description: "" })),
    tables: context.tables.map((name) => ({ name, description: "" })),
    maxSteps: context.maxSteps,
    related: [],
    problems: [],
  });
  const steps: Step[] = draft.steps.map((s) => ({
    ...s,
    dependsOn: s.dependsOn ?? [],
    status: "pending",
    addedInRevision: 0,
  }));
  return {
    objective: draft.objective,
    successCriteria: draft.successCriteria,
    constraints: draft.constraints ?? [],
    steps,
    revision: 0,
  };
}

/** The offline executor names its calls `<stepId>-r<round>-<i>-<tag>`: a line's own exchanges. */
function belongs(stepId: string, callId: string): boolean {
  return callId.startsWith(`${stepId}-r`) && /^\d+-\d+-/.test(callId.slice(stepId.length + 2));
}

function messagesOf(stepId: string, messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    if (m.role === "model" && m.toolCalls) {
      const mine = m.toolCalls.filter((c) => belongs(stepId, c.id));
      if (mine.length > 0) out.push({ role: "model", toolCalls: mine });
    } else if (m.role === "tool") {
      const mine = m.responses.filter((r) => belongs(stepId, r.id));
      if (mine.length > 0) out.push({ role: "tool", responses: mine });
    }
  }
  return out;
}

/** What the line established, shaped as the step result ferret's concluder rules read. */
function resultOf(step: Step, report: StepReport, context: ReactContext, rounds: number): StepResult {
  const mine = context.calls.filter((c) => belongs(step.id, c.call.id));
  const at = new Date(0).toISOString();
  return {
    stepId: step.id,
    status: report.outcome === "failed" ? "failed" : "done",
    outcome: report.outcome,
    summary: report.summary,
    facts: report.facts,
    iocs: mergeIocs(report.iocs, ...mine.map((c) => c.iocs)).slice(0, 50),
    toolCalls: mine.map((c) => c.call),
    iterations: rounds,
    usage: { llmCalls: 0, inputTokens: 0, outputTokens: 0 },
    model: "offline-playbook-react",
    startedAt: at,
    finishedAt: at,
  };
}

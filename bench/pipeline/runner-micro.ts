import { readFileSync } from "node:fs";
import { fromRoot } from "../../functions/src/platform/paths.js";
import {
  type HttpRequest,
  type HttpResponse,
  loadWorkflow,
  runWorkflow,
} from "../../workflows/runner/index.js";
import { type Summary, summarize } from "../lib/stats.js";

/**
 * The workflow runner's own cost with every function answering instantly from memory:
 * workflows/investigate.yaml interpreted end to end (plan, a wave of 4 steps, a wave of
 * 2 steps, conclude), nothing but expression evaluation, scopes, parallel branches and
 * the retry wrapper around each call.
 */
export interface RunnerMicro {
  executions: number;
  callsPerExecution: number;
  stepsPerExecution: number;
  perExecutionMs: Summary;
  /** Interpreter time per function call: execution time / calls. */
  perCallMs: number;
}

const URLS = {
  FERRET_PLANNER_URL: "http://planner.invalid/",
  FERRET_STEP_EXECUTOR_URL: "http://step.invalid/",
  FERRET_REFLECTOR_URL: "http://reflector.invalid/",
  FERRET_CONCLUDER_URL: "http://concluder.invalid/",
};

function answer(request: HttpRequest): unknown {
  const body = JSON.parse(request.body ?? "{}") as { stepId?: string; wave?: number };
  if (request.url === URLS.FERRET_PLANNER_URL)
    return { next: { kind: "execute", stepIds: ["a", "b", "c", "d"] } };
  if (request.url === URLS.FERRET_STEP_EXECUTOR_URL)
    return { stepId: body.stepId, status: "done", executed: true };
  if (request.url === URLS.FERRET_REFLECTOR_URL) {
    return body.wave === 1
      ? { next: { kind: "execute", stepIds: ["e", "f"] } }
      : { next: { kind: "conclude", reason: "every step has finished" } };
  }
  return { investigationId: "inv-micro", status: "concluded", verdict: "benign", confidence: 0.9 };
}

export async function measureRunner(executions: number): Promise<RunnerMicro> {
  const workflow = loadWorkflow(readFileSync(fromRoot("workflows/investigate.yaml"), "utf8"));
  let calls = 0;
  let steps = 0;
  const http = async (request: HttpRequest): Promise<HttpResponse> => {
    calls += 1;
    return {
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(answer(request)),
    };
  };
  const once = () =>
    runWorkflow(
      workflow,
      { investigationId: "inv-micro", deadlineSeconds: 1800 },
      {
        env: URLS,
        http,
        onStep: (event) => {
          if (event.phase === "end") steps += 1;
        },
      },
    );
  for (let i = 0; i < 20; i++) await once(); // warm-up
  calls = 0;
  steps = 0;
  const samples: number[] = [];
  for (let i = 0; i < executions; i++) {
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  const total = samples.reduce((s, v) => s + v, 0);
  return {
    executions,
    callsPerExecution: calls / executions,
    stepsPerExecution: steps / executions,
    perExecutionMs: summarize(samples),
    perCallMs: Math.round((total / calls) * 1000) / 1000,
  };
}

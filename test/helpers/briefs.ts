import type { Brief, BriefRole } from "../../functions/src/agent/briefs.js";
import { sccFinding } from "../fixtures/scc.js";

const STEP = {
  id: "s1",
  description: "Look up the finding's indicators.",
  tools: ["threat_intel_lookup"],
  expected: "A verdict per indicator.",
  dependsOn: [],
  status: "running" as const,
  addedInRevision: 0,
};

const PLAN = {
  objective: "Decide the verdict.",
  successCriteria: [],
  constraints: [],
  steps: [STEP],
  revision: 0,
};

const SESSION_TIME = "2026-01-01T00:00:00.000Z";

/**
 * A well-formed brief of each role, for tests of what does not depend on a brief's facts (an
 * LLM adapter's request mapping, a meter, a fallback): every request names its role this way.
 */
export function someBrief(role: BriefRole): Brief {
  const finding = sccFinding("v1-cryptominer");
  switch (role) {
    case "planner":
      return { role, finding, tools: [], tables: [], maxSteps: 6, related: [], problems: [] };
    case "executor":
      return {
        role,
        finding,
        objective: PLAN.objective,
        step: STEP,
        priorResults: [],
        iteration: 1,
        maxIterations: 3,
        finalReportOnly: false,
      };
    case "reflector":
      return {
        role,
        finding,
        plan: PLAN,
        results: [],
        justFinished: [],
        tools: [],
        actingTools: [],
        maxSteps: 6,
        revisionsLeft: 1,
      };
    case "concluder":
      return { role, finding, plan: PLAN, results: [], reflections: [], mode: "conclude", reason: "done" };
    case "log_analyst":
      return {
        role,
        finding,
        request: "Who logged in?",
        window: { start: SESSION_TIME, end: SESSION_TIME },
        windowSource: "default",
        dialect: "duckdb",
        tables: [],
        runbooks: [],
        memories: [],
        iteration: 1,
        maxIterations: 3,
        finalAnswerOnly: false,
      };
    case "compressor":
      return { role, messages: [], iocs: [], maxWords: 300 };
    case "introspector":
      return {
        role,
        session: {
          sessionId: "sess-1",
          investigationId: "inv-1",
          agent: "log_analyst",
          request: "Who logged in?",
          recalledMemoryIds: [],
          transcript: [],
          answer: "",
          model: "gemini-3.5-flash",
          startedAt: SESSION_TIME,
          finishedAt: SESSION_TIME,
        },
        recalled: [],
        maxFacts: 8,
      };
    case "thread_answer":
      return {
        role,
        question: "Why?",
        investigationId: "inv-1",
        status: "concluded",
        evidence: [],
        tools: [],
        maxToolCalls: 0,
        toolCallsLeft: 0,
        finalAnswerOnly: false,
      };
  }
}

/** Tools or tables by name, for a planner brief: the rule model matches names and ignores descriptions. */
export function named(names: readonly string[]): { name: string; description: string }[] {
  return names.map((name) => ({ name, description: "" }));
}

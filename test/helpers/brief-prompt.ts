import type { Brief } from "../../functions/src/agent/briefs.js";
import { compressorPrompt } from "../../functions/src/agent/compressor.js";
import { concluderPrompt } from "../../functions/src/agent/concluder.js";
import { plannerPrompt } from "../../functions/src/agent/planner.js";
import { reflectorPrompt } from "../../functions/src/agent/reflector.js";
import { stepExecutorPrompt } from "../../functions/src/agent/step-executor.js";
import { threadAnswerPrompt } from "../../functions/src/app/thread-answer.js";
import { logAnalystPrompt } from "../../functions/src/log-analyst/prompt.js";
import { introspectorPrompt } from "../../functions/src/memory/introspect.js";
import type { RenderedPrompt } from "../../functions/src/prompts/render.js";

/** Each role's prompt function, by the brief's role: what the request's text must equal. */
export function promptFor(brief: Brief): RenderedPrompt {
  switch (brief.role) {
    case "planner":
      return plannerPrompt(brief);
    case "executor":
      return stepExecutorPrompt(brief);
    case "reflector":
      return reflectorPrompt(brief);
    case "concluder":
      return concluderPrompt(brief);
    case "log_analyst":
      return logAnalystPrompt(brief);
    case "compressor":
      return compressorPrompt(brief);
    case "introspector":
      return introspectorPrompt(brief);
    case "thread_answer":
      return threadAnswerPrompt(brief);
  }
}

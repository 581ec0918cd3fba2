import { DeadlineExceededError, errorMap, RaisedError, WorkflowError } from "../errors.js";
import type { LoadedWorkflow } from "../loader/load.js";
import { fromJs, toJs, type WfValue } from "../values.js";
import { RunContext } from "./context.js";
import { Interpreter } from "./interpreter.js";
import type { RunOptions } from "./options.js";

/**
 * Executes main with `args` as its runtime argument and returns its return value.
 * A raised error escapes as WorkflowError carrying the Workflows error value;
 * InvalidWorkflowError escapes unchanged for definition problems found at run time.
 */
export async function runWorkflow(wf: LoadedWorkflow, args: unknown, options: RunOptions): Promise<unknown> {
  const ctx = new RunContext(options);
  const interpreter = new Interpreter(wf.definition, ctx);
  const [argsParam] = wf.definition.main.params;
  const mainArgs = new Map<string, WfValue>();
  if (argsParam && args !== undefined) mainArgs.set(argsParam.name, fromJs(args));
  try {
    return toJs(await interpreter.callSubworkflow("main", mainArgs, null));
  } catch (err) {
    if (err instanceof RaisedError) throw new WorkflowError(toJs(err.value));
    if (err instanceof DeadlineExceededError) {
      const payload = errorMap(["TimeoutError"], `Execution exceeded its deadline of ${err.deadlineMs} ms`);
      throw new WorkflowError(toJs(payload), true);
    }
    throw err;
  } finally {
    ctx.dispose();
  }
}

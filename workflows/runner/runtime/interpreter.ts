import { RaisedError, tagged } from "../errors.js";
import type { EvalEnv } from "../expression/evaluate.js";
import { evaluateTemplate } from "../expression/template.js";
import { MAX_CALL_DEPTH } from "../limits.js";
import type {
  CallStep,
  NextTarget,
  Step,
  StepList,
  Subworkflow,
  SwitchStep,
  WorkflowDefinition,
} from "../loader/ast.js";
import { clone, toJs, typeName, type WfValue } from "../values.js";
import { callBuiltin } from "./builtins.js";
import type { RunContext } from "./context.js";
import { type Completion, type Executor, type Frame, NORMAL } from "./executor.js";
import { runForLoop } from "./loop.js";
import { assignTo } from "./lvalue.js";
import { runParallel } from "./parallel.js";
import { Scope } from "./scope.js";
import { runTry } from "./try.js";

function afterNext(target: NextTarget): Completion {
  switch (target.kind) {
    case "step":
      return { kind: "jump", target: target.name };
    case "end":
      // `next: end` stops the current (sub)workflow without a return value.
      return { kind: "return", value: null };
    case "break":
    case "continue":
      return { kind: target.kind };
  }
}

export class Interpreter implements Executor {
  constructor(
    private readonly definition: WorkflowDefinition,
    readonly ctx: RunContext,
  ) {}

  env(scope: Scope): EvalEnv {
    return { env: this.ctx.env, nowMs: () => this.ctx.now(), lookup: (name) => scope.lookup(name) };
  }

  paramNames(subworkflow: string): readonly string[] {
    return this.routine(subworkflow).params.map((p) => p.name);
  }

  private routine(name: string): Subworkflow {
    const sub = name === "main" ? this.definition.main : this.definition.subworkflows.get(name);
    if (!sub) throw tagged("SystemError", `unknown subworkflow ${name}`);
    return sub;
  }

  async callSubworkflow(
    name: string,
    args: ReadonlyMap<string, WfValue>,
    caller: Frame | null,
  ): Promise<WfValue> {
    const sub = this.routine(name);
    const frame: Frame = {
      routine: name,
      depth: (caller?.depth ?? -1) + 1,
      parallelDepth: caller?.parallelDepth ?? 0,
    };
    if (frame.depth > MAX_CALL_DEPTH)
      throw tagged("RecursionError", `maximum call depth ${MAX_CALL_DEPTH} exceeded`);
    const scope = new Scope(null, "function", new Set(), this.ctx.memory);
    try {
      for (const param of sub.params) {
        // Arguments are passed by value: the callee must not see later changes by the
        // caller, nor change the caller's data through its parameters.
        if (args.has(param.name)) scope.define(param.name, clone(args.get(param.name) ?? null));
        else if (param.defaultValue)
          scope.define(param.name, evaluateTemplate(param.defaultValue, this.env(scope)));
        else throw tagged("TypeError", `${name}: missing argument '${param.name}'`);
      }
      const completion = await this.execList(sub.body, scope, frame);
      return completion.kind === "return" ? clone(completion.value) : null;
    } finally {
      scope.release();
    }
  }

  async execList(list: StepList, scope: Scope, frame: Frame): Promise<Completion> {
    let i = 0;
    while (i < list.steps.length) {
      const step = list.steps[i];
      if (!step) break;
      const completion = await this.execStep(step, scope, frame);
      if (completion.kind === "normal") {
        i++;
        continue;
      }
      // A jump resolves here if the target is in this list, else in an enclosing one.
      const target = completion.kind === "jump" ? list.byName.get(completion.target) : undefined;
      if (target === undefined) return completion;
      i = target;
    }
    return NORMAL;
  }

  private async execStep(step: Step, scope: Scope, frame: Frame): Promise<Completion> {
    this.ctx.checkDeadline();
    this.ctx.countStep();
    const startedAt = this.ctx.now();
    const event = { step: step.name, path: step.path, routine: frame.routine };
    this.ctx.step({ ...event, phase: "start", atMs: startedAt });
    let completion: Completion;
    try {
      completion = await this.dispatch(step, scope, frame);
    } catch (err) {
      const end = this.ctx.now();
      const error = err instanceof RaisedError ? toJs(err.value) : String(err);
      this.ctx.step({ ...event, phase: "end", atMs: end, durationMs: end - startedAt, error });
      throw err;
    }
    const end = this.ctx.now();
    this.ctx.step({ ...event, phase: "end", atMs: end, durationMs: end - startedAt });
    return completion.kind === "normal" && step.next ? afterNext(step.next) : completion;
  }

  private async dispatch(step: Step, scope: Scope, frame: Frame): Promise<Completion> {
    switch (step.kind) {
      case "assign":
        for (const a of step.assignments) {
          const env = this.env(scope);
          assignTo(a.target, clone(evaluateTemplate(a.value, env)), scope, env, a.path);
        }
        return NORMAL;
      case "call":
        return this.call(step, scope, frame);
      case "switch":
        return this.switch(step, scope, frame);
      case "steps":
        return this.execList(step.body, scope, frame);
      case "for":
        return runForLoop(step.loop, this, scope, frame);
      case "parallel":
        await runParallel(step, this, scope, frame);
        return NORMAL;
      case "try":
        return runTry(step, this, scope, frame);
      case "raise":
        throw new RaisedError(evaluateTemplate(step.value, this.env(scope)));
      case "return":
        return { kind: "return", value: evaluateTemplate(step.value, this.env(scope)) };
      case "next":
        return NORMAL;
    }
  }

  private async call(step: CallStep, scope: Scope, frame: Frame): Promise<Completion> {
    const env = this.env(scope);
    const args = new Map(step.args.map((a) => [a.name, evaluateTemplate(a.value, env)] as const));
    const result =
      step.target.kind === "subworkflow"
        ? await this.callSubworkflow(step.target.name, args, frame)
        : await callBuiltin(step.target.name, args, this.ctx);
    if (step.result) scope.assign(step.result, result, `${step.path}.result`);
    return NORMAL;
  }

  /** Conditions are tried in order; with no match, execution moves on to the next step. */
  private async switch(step: SwitchStep, scope: Scope, frame: Frame): Promise<Completion> {
    for (const c of step.cases) {
      const matched = evaluateTemplate(c.condition, this.env(scope));
      if (typeof matched !== "boolean") {
        throw tagged("TypeError", `switch condition must be a boolean, got ${typeName(matched)}`);
      }
      if (!matched) continue;
      for (const a of c.assignments) {
        const env = this.env(scope);
        assignTo(a.target, clone(evaluateTemplate(a.value, env)), scope, env, a.path);
      }
      if (c.steps) {
        const completion = await this.execList(c.steps, scope, frame);
        if (completion.kind !== "normal") return completion;
      }
      if (c.returnValue) return { kind: "return", value: evaluateTemplate(c.returnValue, this.env(scope)) };
      if (c.raiseValue) throw new RaisedError(evaluateTemplate(c.raiseValue, this.env(scope)));
      return c.next ? afterNext(c.next) : NORMAL;
    }
    return NORMAL;
  }
}

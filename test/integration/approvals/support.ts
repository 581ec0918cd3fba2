import type { JsonObject } from "../../../functions/src/domain/json.js";
import type { PlanDraft } from "../../../functions/src/domain/plan.js";
import { ZERO_USAGE } from "../../../functions/src/domain/results.js";
import type {
  EmbedRequest,
  GenerateRequest,
  GenerateResponse,
  Model,
} from "../../../functions/src/model/port.js";
import { createOfflineModel } from "../../../functions/src/offline-model/index.js";
import type { RecordedRequest as SlackPost } from "../../helpers/slack-receiver.js";

/** The acting step's id; the executor recognizes its own step by it. */
export const ACTING_STEP = "contain";
export const ACTING_TOOL = "mcp.assets.set_asset_label";

/** An instruction an attacker plants in a finding, in the words an obedient model follows. */
export const INJECTED = /call (mcp\.[a-z]+\.[a-z_]+) with name ([^\s,]+), key ([^\s,]+), value ([^\s,.]+)/i;

function text(request: GenerateRequest): string {
  return request.messages
    .map((m) =>
      m.role === "user" ? m.text : m.role === "model" ? (m.text ?? "") : JSON.stringify(m.responses),
    )
    .join("\n");
}

function answer(body: Pick<GenerateResponse, "toolCalls"> & { text?: string }): GenerateResponse {
  return {
    ...body,
    usage: { ...ZERO_USAGE, inputTokens: 100, outputTokens: 50 },
    finishReason: "STOP",
    model: "approval-scenario",
  };
}

/**
 * A model for the approval scenarios: the offline playbook model does the investigation,
 * and on top the planner adds one step with an acting MCP call and the executor asks for
 * that call. `call` scripts the call (the plan asks for it on purpose); without it, the model
 * is obedient: it takes the call from an instruction it finds in the finding, the way an LLM
 * that follows injected text would. Either way the registry holds the call for a person.
 */
export class ApprovalScenarioModel implements Model {
  readonly name = "approval-scenario";
  readonly offline = false;
  private readonly offlineModel = createOfflineModel();
  readonly actingRequests: JsonObject[] = [];

  constructor(private readonly call?: JsonObject) {}

  private intended(request: GenerateRequest): JsonObject | undefined {
    if (this.call) return this.call;
    const m = INJECTED.exec(text(request));
    if (!m || m[1] !== ACTING_TOOL) return undefined;
    return { name: m[2] as string, key: m[3] as string, value: m[4] as string };
  }

  async generate(request: GenerateRequest): Promise<GenerateResponse> {
    if (request.brief.role === "planner") {
      const base = await this.offlineModel.generate(request);
      const args = this.intended(request);
      if (!args) return base;
      const plan = JSON.parse(base.text ?? "{}") as PlanDraft;
      // Within the cap the brief states, as a model must be: the last evidence step makes room.
      if (plan.steps.length >= request.brief.maxSteps) {
        const dropped = plan.steps.pop()?.id;
        for (const st of plan.steps) st.dependsOn = st.dependsOn.filter((d) => d !== dropped);
      }
      // First, so it runs in the first wave before a reflection may settle the verdict.
      plan.steps.unshift({
        id: ACTING_STEP,
        description: "Label the affected asset for containment",
        tools: [ACTING_TOOL],
        expected: "The asset carries the containment label",
        dependsOn: [],
      });
      return { ...base, text: JSON.stringify(plan) };
    }
    if (request.brief.role === "executor" && text(request).includes(`step \`${ACTING_STEP}\``)) {
      const args = this.intended(request);
      const asked = request.messages.some((m) => m.role === "tool");
      if (args && !asked) {
        this.actingRequests.push(args);
        return answer({ toolCalls: [{ id: "act-1", name: ACTING_TOOL, args }] });
      }
      return answer({
        toolCalls: [],
        text: JSON.stringify({
          outcome: "answered",
          summary: "The containment label call was handed to the tool layer.",
          facts: [],
          iocs: [],
        }),
      });
    }
    return this.offlineModel.generate(request);
  }

  embed(request: EmbedRequest): Promise<number[][]> {
    return this.offlineModel.embed(request);
  }
}

/** An approval request as the notifier posted it to the Slack stand-in. */
export interface ApprovalPost {
  post: SlackPost;
  /** The Approve button's value (`<investigationId>/<approvalId>`), as a click sends it back. */
  value: string;
  ts: string;
  /** The message's blocks, as JSON text. */
  text: string;
}

/** The approval message for investigation `id` among the stand-in's posts, once it is there. */
export function findApprovalPost(posts: readonly SlackPost[], id: string): ApprovalPost | undefined {
  for (const post of posts) {
    const blocks = (post.args.blocks ?? []) as JsonObject[];
    const actions = blocks.find(
      (b) => b.type === "actions" && String(b.block_id).startsWith("ferret_approval_"),
    );
    const approve = ((actions?.elements ?? []) as JsonObject[]).find((e) => e.action_id === "ferret_approve");
    if (approve && String(approve.value).startsWith(`${id}/`))
      return { post, value: String(approve.value), ts: String(post.answer.ts), text: JSON.stringify(blocks) };
  }
  return undefined;
}

import type { Plan, Step } from "../domain/plan.js";
import { type Block, listSections, section } from "./block-kit.js";
import { joinMd, type Mrkdwn, md, untrusted } from "./mrkdwn.js";
import { STEP_STATUS_EMOJI } from "./presentation.js";

const inline = (raw: string, max: number): Mrkdwn => untrusted(raw, { max, inline: true });

export function stepLine(step: Step, index: number): Mrkdwn {
  const tools = joinMd(
    step.tools.map((t) => inline(t, 64)),
    ", ",
  );
  const after =
    step.dependsOn.length > 0
      ? md` · after ${joinMd(
          step.dependsOn.map((d) => inline(d, 40)),
          ", ",
        )}`
      : md``;
  const status = step.status === "pending" ? md`` : md` ${STEP_STATUS_EMOJI[step.status]} ${step.status}`;
  const cancelled = step.cancelReason ? md` (${inline(step.cancelReason, 200)})` : md``;
  return md`${index + 1}. *${inline(step.id, 40)}*${status}${cancelled} — ${inline(step.description, 400)}\n      tools: ${tools}${after}`;
}

/** Objective, success criteria and the steps with their tools and dependencies. */
export function planBlocks(plan: Plan): Block[] {
  const revision = plan.revision > 0 ? md` (revision ${plan.revision})` : md``;
  const criteria = plan.successCriteria.map((c) => md`• ${inline(c, 300)}`);
  const blocks: Block[] = [
    section(md`*Plan*${revision}\n*Objective:* ${untrusted(plan.objective, { max: 1_000 })}`),
  ];
  if (criteria.length > 0) blocks.push(section(md`*Done when*\n${joinMd(criteria, "\n")}`));
  blocks.push(
    ...listSections(
      md`*Steps* (${plan.steps.length})`,
      plan.steps.map((s, i) => stepLine(s, i)),
      { maxSections: 4, noun: "steps" },
    ),
  );
  return blocks;
}

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { printConclusion } from "../../../functions/src/cli/progress.js";
import type { Conclusion } from "../../../functions/src/domain/conclusion.js";
import { renderConclusion } from "../../../functions/src/notify/render-conclusion.js";
import * as fx from "./fixtures.js";

const linked: Conclusion["recommendedActions"] = [
  {
    action: "Revoke the owner binding",
    priority: "immediate",
    link: {
      tool: "revoke_iam_binding",
      args: {
        project: "projects/987654321098",
        role: "roles/owner",
        member: "user:<!channel>*evil*@example.org",
      },
    },
  },
  { action: "Review org policy on external members", priority: "later" },
];

describe("a recommendation linked to a response action", () => {
  it("Slack shows the exact call under it, offered with approval, its finding-derived values escaped", () => {
    const message = renderConclusion(fx.investigation(), fx.conclusion({ recommendedActions: linked }));
    const texts = fx.allTexts(message.blocks).join("\n");
    assert.match(
      texts,
      /• Revoke the owner binding\n {6}↳ _ferret can do this with approval:_ .*revoke_iam_binding\(project=projects\/987654321098, role=roles\/owner, member=user:/,
    );
    assert.doesNotMatch(texts, /<!channel>/);
    assert.equal((texts.match(/ferret can do this with approval/g) ?? []).length, 1, "only the linked one");
  });

  it("the terminal shows it too", () => {
    const lines: string[] = [];
    const inv = fx.investigation({ conclusion: fx.conclusion({ recommendedActions: linked }) });
    printConclusion({ line: (l) => lines.push(...l.split("\n")) }, inv);
    const at = lines.findIndex((l) => l.includes("Revoke the owner binding"));
    assert.ok(at >= 0);
    assert.match(
      lines[at + 1] ?? "",
      /↳ ferret can do this with approval: revoke_iam_binding\(project=projects\/987654321098, role=roles\/owner, member=user:/,
    );
  });
});

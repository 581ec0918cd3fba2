import type { Conclusion } from "../../../functions/src/domain/conclusion.js";

/** Markup, script, attribute and CSS injections, as an attacker would write them into a finding. */
export const HOSTILE = [
  "<script>window.__pwned = 1; alert('script')</script>",
  "<img src=x onerror=\"window.__pwned = 2; alert('img')\">",
  '"><a id=injected href="javascript:alert(\'link\')">click</a><b onmouseover=alert(1)>',
  '</pre><style>body{display:none !important}</style><div id="injected-style">',
] as const;

export function conclusionFrom(strings: readonly string[]): Conclusion {
  return {
    verdict: "inconclusive",
    confidence: 0.4,
    severity: "HIGH",
    summary: strings.join(" | "),
    mitre: [],
    keyFindings: [
      { finding: strings[0] ?? "", evidence: [{ source: strings[1] ?? "", detail: strings[3] ?? "" }] },
    ],
    iocs: strings.map((value) => ({ type: "domain" as const, value })),
    recommendedActions: [{ action: strings[2] ?? "", priority: "immediate" }],
    openQuestions: [strings[3] ?? ""],
    producedBy: { model: "offline", offline: true },
    createdAt: new Date().toISOString(),
  };
}

import { intelHas, isBad } from "../../evidence/intel.js";
import type { AuditEvidence } from "../../evidence/types.js";
import { bareMember, emailDomain, isGoogleManagedDomain } from "../../net.js";
import type { Subject } from "../../subject.js";
import { confidenceFrom, type Decision, dropAbsent, keyFinding, sumCount } from "../decision.js";
import type { EvidenceIndex, Located } from "../evidence-index.js";

/** Consumer mail domains: never an organization's own domain. */
const CONSUMER =
  /^(gmail|googlemail|outlook|hotmail|live|yahoo|ymail|aol|icloud|me|proton|protonmail|pm|gmx|mail|yandex|qq|163|zoho)\.[a-z.]+$/;
/**
 * Deployment automation, by the account name of the principal (the part before "@"), anchored
 * at token starts: "ci-deployer" and "terraform-sa" are automation, "social" or "decider" are not.
 */
const AUTOMATION =
  /(?:^|[^a-z0-9])(?:terraform|cloud-?build|deploy[a-z]*|cicd|ci-cd|ci|pipelines?|automation|gitops|config-?sync|config-connector|pulumi|ansible|github-actions|gitlab)(?![a-z0-9])/i;
/** User agents deployment tooling sends, as the product token that starts the agent or a later one; a script's python-requests is not one of them. */
const AUTOMATION_AGENT =
  /(?:^|[\s(;])(?:terraform|google-cloud-build|cloud-?build|deployment-?manager|pulumi|config-connector|kpt|ansible|github-actions|gitlab-runner|argocd|crossplane)(?:[/\s;)]|$)/i;
const SENSITIVE_ROLE =
  /roles\/(owner|editor|.*admin.*|iam\.serviceAccount(TokenCreator|KeyAdmin|User)|resourcemanager\.\w+Admin|securityAdmin)/i;

function memberDomain(member: string): string | undefined {
  const bare = bareMember(member);
  if (/^domain:/i.test(member)) return member.slice(7).toLowerCase();
  return emailDomain(bare);
}

/**
 * The organization's own domains: the granter's, or else those of other principals acting in
 * the audit logs, never the granted members' (a member using its new access is not evidence
 * that it belongs).
 */
function orgDomains(
  subject: Subject,
  index: EvidenceIndex,
  grants: readonly Located<AuditEvidence>[],
  members: ReadonlySet<string>,
): Set<string> {
  const own = (p: string | undefined) => {
    const d = p ? emailDomain(p) : undefined;
    return d && !CONSUMER.test(d) && !isGoogleManagedDomain(d) ? d : undefined;
  };
  const granters = [subject.principal, ...grants.map((g) => g.evidence.principal)]
    .map(own)
    .filter((d): d is string => Boolean(d));
  if (granters.length > 0) return new Set(granters);
  const others = index
    .of("audit")
    .map((a) => a.evidence.principal)
    .filter((p) => p && !members.has(p.toLowerCase()))
    .map(own)
    .filter((d): d is string => Boolean(d));
  return new Set(others);
}

function isExternal(member: string, org: ReadonlySet<string>, project: string | undefined): boolean {
  if (/^(allUsers|allAuthenticatedUsers)$/i.test(bareMember(member))) return true;
  const domain = memberDomain(member);
  if (!domain) return false;
  if (CONSUMER.test(domain)) return true;
  // A service account of another project is outside this project's control even if the org owns it.
  const sa = /^([a-z0-9-]+)\.iam\.gserviceaccount\.com$/.exec(domain);
  if (sa) return project !== undefined && sa[1] !== project;
  if (isGoogleManagedDomain(domain)) return false;
  return org.size > 0 && !org.has(domain);
}

/**
 * Anomalous IAM grant verdict rules:
 * - true_positive when the grant is in the logs, the member is outside the granting
 *   organization's domains (consumer mail, another domain, a foreign project's service account)
 *   and the change is not an approved one; also when the granter called from an IP intel marks
 *   malicious or anonymizing;
 * - approved means at least two independent signals, each anchored: an automation identity (its
 *   account name, as whole tokens); the request's own claim — a change ticket cited in a
 *   justification-like field (never a ticket-shaped word inside a member or principal) or a
 *   deployment tool's user agent, one signal since one request carries both; the granter's other
 *   work from the grant's address; and no sign against it: the grant came from the addresses the granter normally uses and
 *   intel does not flag them. An automation identity used from a new address with a script's
 *   user agent is a stolen credential, not automation;
 * - benign when the grant is approved;
 * - false_positive when the member belongs to the organization (the detection's premise fails)
 *   and a second signal agrees (an approval signal, or a role that is not sensitive);
 * - inconclusive when the grant is not in the logs.
 */
export function iamGrantRules(subject: Subject, index: EvidenceIndex): Decision {
  const wanted = new Set(subject.granted.map((g) => bareMember(g.member).toLowerCase()));
  const isWanted = (b: AuditEvidence["bindings"][number]) =>
    b.action === "ADD" && (wanted.size === 0 || wanted.has(bareMember(b.member).toLowerCase()));
  const grants = index.of("audit").filter((a) => a.evidence.bindings.some(isWanted));
  const added = grants.flatMap((g) => g.evidence.bindings.filter(isWanted));
  const members = [
    ...new Set([
      ...added.map((b) => bareMember(b.member)),
      ...subject.granted.map((g) => bareMember(g.member)),
    ]),
  ];
  const memberKeys = new Set(members.map((m) => m.toLowerCase()));
  const org = orgDomains(subject, index, grants, memberKeys);
  const external = members.filter((m) => isExternal(m, org, subject.project));
  const granters = [
    ...new Set(
      [...grants.map((g) => g.evidence.principal), subject.principal].filter((p): p is string => Boolean(p)),
    ),
  ];
  const grantIps = new Set(grants.map((g) => g.evidence.callerIp).filter((ip): ip is string => Boolean(ip)));
  // Where the granters act from otherwise (their activity step): a grant from elsewhere is unusual.
  const usualIps = [
    ...new Set(
      index
        .of("audit")
        .filter(
          (a) =>
            a.evidence.principal &&
            granters.includes(a.evidence.principal) &&
            a.evidence.callerIp &&
            !grantIps.has(a.evidence.callerIp),
        )
        .map((a) => a.evidence.callerIp ?? ""),
    ),
  ];
  const unusualCaller = usualIps.length > 0 && [...grantIps].some((ip) => !usualIps.includes(ip));
  // The granter's other work (not the grant) from the grant's own address: it acts from there anyway.
  const grantMethods = new Set(grants.map((g) => g.evidence.method));
  const usualAddress = index.of("audit").some(
    (a) =>
      // Another method: several steps return the grant itself, some as an aggregate without its bindings.
      !grantMethods.has(a.evidence.method) &&
      a.evidence.principal !== undefined &&
      granters.includes(a.evidence.principal) &&
      a.evidence.callerIp !== undefined &&
      grantIps.has(a.evidence.callerIp),
  );
  const tickets = [...new Set(grants.flatMap((g) => g.evidence.tickets))];
  // Policy-change rows may lack the user agent; the granter's own activity rows from the same address carry it.
  const agentOf = (g: Located<AuditEvidence>): string =>
    g.evidence.userAgent ??
    index
      .of("audit")
      .find(
        (a) =>
          a.evidence.principal === g.evidence.principal &&
          a.evidence.callerIp === g.evidence.callerIp &&
          a.evidence.userAgent,
      )?.evidence.userAgent ??
    "";
  const account = (p: string | undefined) => (p ?? "").split("@")[0] ?? "";
  const automationIdentity = grants.filter((g) => AUTOMATION.test(account(g.evidence.principal)));
  const toolAgent = grants.filter((g) => AUTOMATION_AGENT.test(agentOf(g)));
  const automation = automationIdentity.filter((g) => toolAgent.includes(g));
  const sensitive = [
    ...new Set(
      [...added.map((b) => b.role), ...subject.granted.map((g) => g.role ?? "")].filter((r) =>
        SENSITIVE_ROLE.test(r),
      ),
    ),
  ];
  const granteeUse = [...index.of("audit"), ...index.of("object_read")].filter((a) =>
    memberKeys.has((a.evidence.principal ?? "").toLowerCase()),
  );
  const callerIps = [...new Set([...grantIps, ...(subject.callerIp ? [subject.callerIp] : [])])];
  const badCaller = dropAbsent(callerIps.map((ip) => index.intelFor(ip))).filter(
    (i) => isBad(i.evidence) || intelHas(i.evidence, "anonymizer"),
  );
  // Independent signals of an approved change, one per source; corroboration.ts wants two. The
  // ticket and the user agent are both written by whoever sends the request, so together they
  // are one signal; the identity's name and its usual address come from elsewhere.
  const approvals = dropAbsent([
    automationIdentity.length > 0 && "the granter is a deployment automation identity",
    (tickets.length > 0 || toolAgent.length > 0) &&
      "the request cites a change ticket or carries a deployment tool's user agent",
    usualAddress && "the granter otherwise works from the grant's address",
  ]);
  const approved = approvals.length >= 2 && !unusualCaller && badCaller.length === 0;

  const why = (m: string) => {
    const domain = memberDomain(m) ?? "";
    if (/^(allUsers|allAuthenticatedUsers)$/i.test(m)) return "everyone";
    if (CONSUMER.test(domain)) return `a consumer mail account (${domain})`;
    if (/\.iam\.gserviceaccount\.com$/.test(domain)) return "a service account of another project";
    return `domain ${domain}, not ${[...org].join(" or ")}`;
  };
  const findings = dropAbsent([
    keyFinding(
      `${granters.join(", ") || "A principal"} granted ${
        added
          .map((b) => `${b.role} to ${b.member}`)
          .slice(0, 3)
          .join("; ") || "a role"
      }.`,
      grants,
    ),
    keyFinding(
      external.length > 0
        ? `The new member is outside the organization: ${external.map((m) => `${m} is ${why(m)}`).join("; ")}.`
        : `The member(s) ${members.join(", ")} belong to the organization's domain(s) ${[...org].join(", ")}.`,
      grants.slice(0, 1),
    ),
    keyFinding(
      `The grant came from ${[...grantIps].join(", ")}${grants[0] && agentOf(grants[0]) ? ` with user agent ${JSON.stringify(agentOf(grants[0]))}` : ""}, while ${granters.join(", ")} otherwise acts from ${usualIps.slice(0, 4).join(", ")}.`,
      unusualCaller ? grants : [],
    ),
    keyFinding(
      `The grant is an approved change: ${[...tickets.map((t) => `ticket ${t}`), ...automation.map((a) => `automation ${a.evidence.principal ?? ""} (${agentOf(a)})`)].join(", ")}.`,
      approved ? grants : [],
    ),
    keyFinding(
      `The new member used the access: ${sumCount(granteeUse)} call(s) (${[...new Set(granteeUse.map((g) => g.evidence.method))].slice(0, 4).join(", ")}).`,
      granteeUse,
    ),
    keyFinding(
      `The granter's caller IP is flagged by threat intel: ${badCaller.map((i) => `${i.evidence.value} ${i.evidence.verdict}`).join(", ")}.`,
      badCaller,
    ),
  ]);
  const iocs = [
    ...external.map((m) => ({
      type: "principal" as const,
      value: bareMember(m),
      context: "external member granted a role",
    })),
    ...badCaller.map((i) => ({
      type: "ip" as const,
      value: i.evidence.value,
      context: "granter's caller IP flagged by intel",
    })),
  ];

  if (grants.length > 0 && ((external.length > 0 && !approved) || badCaller.length > 0)) {
    return {
      verdict: "true_positive",
      confidence: confidenceFrom(
        0.82,
        sensitive.length + (granteeUse.length > 0 ? 1 : 0) + badCaller.length + (unusualCaller ? 1 : 0),
      ),
      severity: sensitive.length > 0 || granteeUse.length > 0 ? "HIGH" : "MEDIUM",
      rule: "Rule: an IAM grant to a member outside the organization (or from a flagged IP) without approved automation or a change ticket → true_positive.",
      findings,
      iocs,
      mitre: [
        { tactic: "Persistence", techniqueId: "T1098", techniqueName: "Account Manipulation" },
        ...(sensitive.length
          ? [
              {
                tactic: "Privilege Escalation",
                techniqueId: "T1098.003",
                techniqueName: "Additional Cloud Roles",
              },
            ]
          : []),
      ],
      actions: [
        {
          action: `Remove the binding(s) for ${external.join(", ") || members.join(", ")} now.`,
          priority: "immediate",
          respondWith: "revoke_iam_binding",
        },
        {
          action: `Treat ${granters.join(", ") || "the granting principal"} as compromised until cleared: revoke sessions and keys, check its recent activity.`,
          priority: "immediate",
        },
        {
          action:
            "Review what the new member accessed and add an org policy restricting IAM members to your domains (iam.allowedPolicyMemberDomains).",
          priority: "soon",
        },
      ],
      openQuestions:
        granteeUse.length === 0
          ? ["Has the external member used the access from outside the logged window?"]
          : [],
    };
  }
  if (grants.length > 0 && approved) {
    return {
      verdict: "benign",
      signals: approvals,
      confidence: confidenceFrom(
        0.72,
        (automation.length > 0 ? 1 : 0) + (tickets.length > 0 ? 1 : 0) + (external.length === 0 ? 1 : 0),
      ),
      severity: "LOW",
      rule: "Rule: the grant was made by deployment automation or cites a change ticket → benign (approved change).",
      findings,
      iocs: [],
      mitre: [],
      actions: [
        {
          action: `Confirm ${tickets.join(", ") || "the change record"} covers granting ${members.join(", ")}; mute similar automation grants if so.`,
          priority: "later",
        },
      ],
      openQuestions: external.length > 0 ? [`Is ${external.join(", ")} an approved partner identity?`] : [],
    };
  }
  if (grants.length > 0 && external.length === 0 && org.size > 0) {
    return {
      verdict: "false_positive",
      signals: dropAbsent([
        "the member's domain is the organization's own",
        ...approvals,
        sensitive.length === 0 && "the role granted is not a sensitive one",
      ]),
      confidence: 0.6,
      severity: "LOW",
      rule: "Rule: the granted member belongs to the organization's own domain, so the 'outside member' premise fails → false_positive.",
      findings,
      iocs: [],
      mitre: [],
      actions: [
        { action: `Confirm with ${granters.join(", ")} that the grant was intended.`, priority: "later" },
      ],
      openQuestions: [],
    };
  }
  const found = grants.length > 0;
  return {
    verdict: "inconclusive",
    confidence: 0.3,
    severity: "MEDIUM",
    rule: found
      ? "Rule: the grant is in the logs but neither the member's organization nor an approval could be established → inconclusive."
      : "Rule: the grant itself was not found in the admin activity logs → inconclusive.",
    findings,
    iocs: subject.granted.map((g) => ({
      type: "principal" as const,
      value: bareMember(g.member),
      context: "member named by the finding",
    })),
    mitre: [],
    actions: [
      {
        action: "Read the current IAM policy of the resource and the granter's recent activity directly.",
        priority: "soon",
      },
    ],
    openQuestions: found
      ? [
          `Does ${members.join(", ")} belong to your organization, and who approved the grant by ${granters.join(", ")}?`,
        ]
      : [
          `Who granted ${subject.granted.map((g) => g.member).join(", ") || "the role"}, and under which change?`,
        ],
  };
}

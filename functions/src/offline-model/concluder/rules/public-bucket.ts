import { isBad } from "../../evidence/intel.js";
import type { ObjectReadEvidence } from "../../evidence/types.js";
import type { Subject } from "../../subject.js";
import { confidenceFrom, type Decision, dropAbsent, keyFinding, sumCount } from "../decision.js";
import type { EvidenceIndex, Located } from "../evidence-index.js";

const PUBLIC_MEMBER = /^(allUsers|allAuthenticatedUsers)$/i;
const WEB_ASSET =
  /(\.(html?|css|m?js|png|jpe?g|gif|svg|ico|webp|avif|woff2?|ttf|eot|map|webmanifest)|robots\.txt|sitemap\.xml|favicon\.ico)$/i;
const PRIVATE_DATA =
  /\.(csv|tsv|sql|bak|dump|xlsx?|parquet|avro|json|jsonl|ndjson|gz|zip|tar|7z|pem|key|p12|pfx|env|log|db|sqlite)$|backup|export|dump|secret|credential|password|customer|invoice|payroll|pii|private|internal|confidential/i;
const WEBSITE_NAME = /(^|[-_.])(www|web|site|static|assets|public|cdn|img|images|media|docs)([-_.]|$)/i;

const CONSUMER_MAIL = /@(gmail|googlemail|outlook|hotmail|yahoo|icloud|proton|protonmail|gmx|yandex)\./i;

/** Anonymous callers, and consumer accounts that only allAuthenticatedUsers lets in. */
function isOutsider(read: ObjectReadEvidence): boolean {
  return (
    !read.principal ||
    /^(allUsers|anonymous|system:anonymous)$/i.test(read.principal) ||
    CONSUMER_MAIL.test(read.principal)
  );
}

/**
 * Public bucket verdict rules:
 * - true_positive when objects were read anonymously and they are not public web assets (data
 *   files, backups, exports); also when an allUsers/allAuthenticatedUsers binding exists and
 *   nothing shows the bucket is a public website (exposure without observed use, lower confidence);
 * - benign when the bucket serves a public website: every object read is a web asset and the
 *   bucket looks like a site (its name, or an index page);
 * - inconclusive when neither the binding nor reads are in the logs.
 */
export function publicBucketRules(subject: Subject, index: EvidenceIndex): Decision {
  const bucket = subject.bucket ?? subject.resourceShort;
  const onBucket = (r: Located<ObjectReadEvidence>) => !r.evidence.bucket || r.evidence.bucket === bucket;
  const reads = index.of("object_read").filter(onBucket);
  const anonymous = reads.filter((r) => isOutsider(r.evidence));
  const objects = [
    ...new Set(anonymous.map((r) => r.evidence.object).filter((o): o is string => Boolean(o))),
  ];
  const privateObjects = objects.filter((o) => PRIVATE_DATA.test(o) && !WEB_ASSET.test(o));
  const allWeb = objects.length > 0 && objects.every((o) => WEB_ASSET.test(o));
  const bucketChanges = index
    .of("audit")
    .filter((a) => !a.evidence.resource || a.evidence.resource.includes(bucket));
  const intentChanges = bucketChanges.filter(
    (a) => a.evidence.website === true || a.evidence.intentHints.length > 0,
  );
  const configured = intentChanges.length > 0;
  const intentWords = [
    ...new Set(
      intentChanges.flatMap((a) => [
        ...a.evidence.intentHints,
        ...a.evidence.tickets.map((t) => `change ${t}`),
      ]),
    ),
  ];
  const website =
    (allWeb || (objects.length === 0 && configured)) &&
    (configured || WEBSITE_NAME.test(bucket) || objects.some((o) => /index\.html?$/i.test(o)));
  const bindings = index
    .of("audit")
    .filter(
      (a) =>
        a.evidence.bindings.some((b) => b.action === "ADD" && PUBLIC_MEMBER.test(b.member)) &&
        (!a.evidence.resource || a.evidence.resource.includes(bucket)),
    );
  const readers = [
    ...new Set(anonymous.map((r) => r.evidence.callerIp).filter((ip): ip is string => Boolean(ip))),
  ];
  const badReaders = dropAbsent(readers.map((ip) => index.intelFor(ip))).filter((i) => isBad(i.evidence));
  const exposer = [
    ...new Set(bindings.map((b) => b.evidence.principal).filter((p): p is string => Boolean(p))),
  ];

  const findings = dropAbsent([
    keyFinding(
      `${exposer.join(", ") || "A principal"} made gs://${bucket} public (${[...new Set(bindings.flatMap((b) => b.evidence.bindings.filter((x) => PUBLIC_MEMBER.test(x.member)).map((x) => `${x.member} ${x.role}`)))].join(", ")}).`,
      bindings,
    ),
    keyFinding(
      `${sumCount(anonymous)} anonymous read(s) of ${objects.length} object(s) from ${readers.length} IP(s): ${objects.slice(0, 5).join(", ")}.`,
      anonymous,
    ),
    keyFinding(
      `Objects read anonymously look like private data: ${privateObjects.slice(0, 5).join(", ")}.`,
      privateObjects.length ? anonymous.filter((r) => privateObjects.includes(r.evidence.object ?? "")) : [],
    ),
    keyFinding(
      `The bucket is public by design: ${intentWords.join(", ")}${intentChanges.some((a) => a.evidence.principal) ? `, set by ${[...new Set(intentChanges.map((a) => a.evidence.principal ?? ""))].filter(Boolean).join(", ")}` : ""}.`,
      intentChanges,
    ),
    keyFinding(
      `Every object read anonymously is a web asset (${objects.slice(0, 4).join(", ")}).`,
      allWeb ? anonymous : [],
    ),
    keyFinding(
      `Readers flagged by threat intel: ${badReaders.map((i) => i.evidence.value).join(", ")}.`,
      badReaders,
    ),
  ]);
  const iocs = [
    ...readers
      .slice(0, 20)
      .map((ip) => ({ type: "ip" as const, value: ip, context: `anonymous reader of gs://${bucket}` })),
    ...exposer.map((p) => ({ type: "principal" as const, value: p, context: `made gs://${bucket} public` })),
  ];
  const tp = (
    confidence: number,
    severity: Decision["severity"],
    rule: string,
    openQuestions: string[] = [],
  ): Decision => ({
    verdict: "true_positive",
    confidence,
    severity,
    rule,
    findings,
    iocs,
    mitre:
      anonymous.length > 0
        ? [{ tactic: "Collection", techniqueId: "T1530", techniqueName: "Data from Cloud Storage" }]
        : [],
    actions: [
      {
        action: `Remove allUsers/allAuthenticatedUsers from gs://${bucket} and enable public access prevention.`,
        priority: "immediate",
      },
      {
        action: `Assess the exposure of ${privateObjects.slice(0, 3).join(", ") || "the objects read"}: notify data owners and follow breach procedures if personal data left.`,
        priority: "soon",
      },
      {
        action:
          "Add an org policy enforcing storage.publicAccessPrevention and review who can set bucket IAM.",
        priority: "later",
      },
    ],
    openQuestions,
  });

  if (anonymous.length > 0 && privateObjects.length > 0) {
    return tp(
      confidenceFrom(0.88, (bindings.length > 0 ? 1 : 0) + badReaders.length),
      "HIGH",
      "Rule: non-public objects (data files, backups, exports) were read anonymously → true_positive (data exposed and accessed).",
    );
  }
  if (website) {
    return {
      verdict: "benign",
      signals: dropAbsent([
        configured && "the bucket was configured or labelled as a public website",
        allWeb && "only web assets were read anonymously",
        WEBSITE_NAME.test(bucket) && "the bucket has a site-like name",
        objects.some((o) => /index\.html?$/i.test(o)) && "its index page is what readers fetch",
      ]),
      confidence: confidenceFrom(0.72, WEBSITE_NAME.test(bucket) ? 1 : 0),
      severity: "LOW",
      rule:
        objects.length > 0
          ? "Rule: the bucket serves a public website and only web assets were read anonymously → benign (intended public)."
          : "Rule: the bucket is configured and labeled as a public website and no private data was read → benign (intended public).",
      findings,
      iocs: [],
      mitre: [],
      actions: [
        {
          action: `Document gs://${bucket} as an intended public website and mute this finding for it; consider serving it through a load balancer with a backend bucket.`,
          priority: "later",
        },
      ],
      openQuestions: [],
    };
  }
  if (anonymous.length > 0) {
    return tp(
      0.78,
      "HIGH",
      "Rule: objects that are not website assets were read anonymously → true_positive.",
    );
  }
  if (bindings.length > 0) {
    return tp(
      0.6,
      "MEDIUM",
      "Rule: an allUsers/allAuthenticatedUsers binding was added and nothing shows the bucket is a public website → true_positive (exposure; no anonymous reads seen).",
      ["Are data-access logs enabled for the bucket? Without them anonymous reads are invisible."],
    );
  }
  return {
    verdict: "inconclusive",
    confidence: 0.3,
    severity: "MEDIUM",
    rule: "Rule: neither the public binding nor anonymous reads are in the logs → inconclusive.",
    findings,
    iocs,
    mitre: [],
    actions: [
      {
        action: `Read the current IAM policy of gs://${bucket} and list its objects to judge what is exposed.`,
        priority: "soon",
      },
    ],
    openQuestions: [
      `Is gs://${bucket} meant to be public?`,
      "Are data-access logs enabled for Cloud Storage in this project?",
    ],
  };
}

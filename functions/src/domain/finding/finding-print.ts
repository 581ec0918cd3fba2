import { createHash } from "node:crypto";
import { z } from "zod";

/**
 * A finding's print: a digest of every field of its canonical notification (finding-canonical.ts)
 * except the few that identify one occurrence, with a digest per field at every depth. Two
 * findings with equal prints say the same thing about the same activity; any other difference,
 * at any depth, changes the print. Grouping covers a finding by its lead only when the prints
 * are equal (decision 0046): what may differ is listed, not what is compared.
 */

/** One step of a path: an object key or an array index. */
type Segment = string | number;
/** A pattern step: a key, or `*` for any array index. */
type PatternSegment = string;

/**
 * The fields that identify an occurrence rather than describe it, with why, from Google's Finding
 * reference (https://cloud.google.com/security-command-center/docs/reference/rest/v2/organizations.sources.findings#Finding)
 * and the BigQuery export's schema. A repeat of the very same activity differs from its first
 * report in these and nothing else; every other field (mute state, marks, links included) is compared.
 */
export const OCCURRENCE_FIELDS: readonly { path: readonly PatternSegment[]; why: string }[] = [
  { path: ["finding", "name"], why: "the finding's relative resource name, ending in its id" },
  {
    path: ["finding", "canonicalName"],
    why: "the same name under the closest project, folder or organization",
  },
  {
    path: ["finding", "eventTime"],
    why: "when the event took place, or when an existing finding was updated",
  },
  { path: ["finding", "createTime"], why: "when the finding was created in Security Command Center" },
  {
    path: ["finding", "securityMarks", "name"],
    why: "the marks' resource name: the finding's name followed by /securityMarks",
  },
  {
    path: ["finding", "securityMarks", "canonicalName"],
    why: "the marks' name under the finding's canonical name",
  },
  {
    path: ["finding", "logEntries", "*", "cloudLoggingEntry", "insertId"],
    why: "a unique identifier of the log entry behind this occurrence",
  },
  {
    path: ["finding", "logEntries", "*", "cloudLoggingEntry", "timestamp"],
    why: "when the event described by that log entry occurred",
  },
  { path: ["finding_id"], why: "an export row's copy of the finding's id" },
  { path: ["event_time"], why: "an export row's copy of the finding's event time" },
];

function isOccurrenceField(path: readonly Segment[]): boolean {
  return OCCURRENCE_FIELDS.some(
    (f) =>
      f.path.length === path.length &&
      f.path.every((p, i) => (p === "*" ? typeof path[i] === "number" : p === path[i])),
  );
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A step of a path as people read it: `.callerIp`, `[0]`, `["a.b"]` (no dot at the start). */
function stepText(parent: string, s: Segment): string {
  if (typeof s === "number") return `[${s}]`;
  if (IDENTIFIER.test(s)) return parent === "" ? s : `.${s}`;
  return `[${JSON.stringify(s)}]`;
}

/** Paths are named up to this length; a deeper field is described by its named ancestor. */
const PATH_CHARS = 200;
/** The longest occurrence pattern: deeper fields are never occurrence fields. */
const OCCURRENCE_DEPTH = Math.max(...OCCURRENCE_FIELDS.map((f) => f.path.length));

type Scalar = string | number | boolean | null;

interface PrintNode {
  /** `finding.access.callerIp`, `finding.processes[0].args[1]`; undefined past PATH_CHARS. */
  path: string | undefined;
  /** Its key in its parent object, or its index in its parent list (the root's is ""). */
  key: string;
  kind: "object" | "array" | "scalar";
  value?: Scalar;
  digest: string;
  children: PrintNode[];
}

/** The full print of one finding, kept in memory while it is compared. */
export interface FindingPrint {
  root: PrintNode;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function sha(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * The print of a canonical notification payload. Iterative (a JSON-string sourceProperties can
 * nest deeper than the stack), and uncapped: every value counts.
 */
export function findingPrint(payload: unknown): FindingPrint {
  const root: PrintNode = { path: "", key: "", kind: "scalar", digest: "", children: [] };
  const order: PrintNode[] = [];
  // `segs` only as deep as an occurrence field can be, and paths only as long as they are named,
  // so a field nested 20,000 deep costs what its value costs, not its depth again.
  const stack: { value: unknown; segs: Segment[] | undefined; node: PrintNode }[] = [
    { value: payload, segs: [], node: root },
  ];
  while (stack.length > 0) {
    const { value, segs, node } = stack.pop()!;
    order.push(node);
    const entries: [Segment, unknown][] = Array.isArray(value)
      ? value.map((v, i) => [i, v])
      : isRecord(value)
        ? Object.keys(value)
            .sort()
            .filter((k) => value[k] !== undefined)
            .map((k) => [k, value[k]])
        : [];
    if (Array.isArray(value)) node.kind = "array";
    else if (isRecord(value)) node.kind = "object";
    else node.value = (value ?? null) as Scalar;
    for (const [seg, inner] of entries) {
      const childSegs = segs && segs.length < OCCURRENCE_DEPTH ? [...segs, seg] : undefined;
      if (childSegs && isOccurrenceField(childSegs)) continue;
      const path = node.path === undefined ? undefined : node.path + stepText(node.path, seg);
      const child: PrintNode = {
        path: path !== undefined && path.length <= PATH_CHARS ? path : undefined,
        key: String(seg),
        kind: "scalar",
        digest: "",
        children: [],
      };
      node.children.push(child);
      stack.push({ value: inner, segs: childSegs, node: child });
    }
  }
  // Children come after their parent in `order`, so walking it backwards digests them first.
  for (let i = order.length - 1; i >= 0; i -= 1) {
    const node = order[i] as PrintNode;
    node.digest =
      node.kind === "scalar"
        ? sha(`s${JSON.stringify(node.value)}`)
        : sha(
            `${node.kind === "object" ? "o" : "a"}${node.children.map((c) => `${JSON.stringify(c.key)}:${c.digest}`).join(",")}`,
          );
  }
  return { root };
}

/** How many field digests a stored print keeps: words only. */
export const STORED_PRINT_LIMITS = { fields: 200 } as const;

/**
 * A print as a group stores it: the whole finding's digest (which alone decides coverage) and
 * the digests of its fields, breadth first while they fit, each with its parent's index (-1 for
 * a top-level field), so a later finding's differences can be named down to the deepest kept.
 */
export const StoredPrintSchema = z.object({
  digest: z.string(),
  fields: z
    .array(z.object({ path: z.string(), digest: z.string(), parent: z.number().int().min(-1) }))
    .max(STORED_PRINT_LIMITS.fields),
});
export type StoredPrint = z.infer<typeof StoredPrintSchema>;

export function storedPrint(print: FindingPrint): StoredPrint {
  const fields: StoredPrint["fields"] = [];
  const queue: { node: PrintNode; index: number }[] = [{ node: print.root, index: -1 }];
  while (queue.length > 0) {
    const { node, index } = queue.shift()!;
    const fits =
      fields.length + node.children.length <= STORED_PRINT_LIMITS.fields &&
      node.children.every((c) => c.path !== undefined);
    if (!fits) continue;
    for (const c of node.children) {
      queue.push({ node: c, index: fields.length });
      fields.push({ path: c.path ?? "", digest: c.digest, parent: index });
    }
  }
  return { digest: print.root.digest, fields };
}

/** A field's path, or for one too long to name, its named parent's. */
function named(node: PrintNode, parent?: PrintNode): string {
  if (node.path !== undefined && node.path !== "") return node.path;
  if (node.path === "") return "the finding";
  return `a field of ${parent ? named(parent) : "the finding"} with a name too long to show`;
}

function shown(value: Scalar | undefined): string {
  const text = JSON.stringify(value ?? null);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/** At most this many differences are named; the rest are counted. */
const NAMED_DIFFERENCES = 8;

/**
 * How a finding differs from its group's lead, field by field, in words; empty exactly when the
 * two prints are equal, so the lead's verdict stands only for a finding that says what the
 * lead's said. The words name the deepest differing fields the lead's stored print keeps.
 */
export function printDifferences(lead: StoredPrint, member: FindingPrint): string[] {
  if (lead.digest === member.root.digest) return [];
  const byPath = new Map(lead.fields.map((f, i) => [f.path, { digest: f.digest, index: i }]));
  const childrenOf = new Map<number, string[]>();
  for (const f of lead.fields) childrenOf.set(f.parent, [...(childrenOf.get(f.parent) ?? []), f.path]);
  const out: string[] = [];
  const below = (node: PrintNode, leadIndex: number) => {
    const theirs = childrenOf.get(leadIndex) ?? [];
    if (node.kind === "scalar" || theirs.length === 0) {
      const name = named(node);
      out.push(
        node.kind === "scalar"
          ? `${name} is ${shown(node.value)}, not the lead's`
          : `${name} differs from the lead's`,
      );
      return;
    }
    for (const child of node.children) {
      const lead = child.path === undefined ? undefined : byPath.get(child.path);
      if (lead?.digest === child.digest) continue;
      if (lead === undefined)
        out.push(
          child.kind === "scalar"
            ? `${named(child, node)} (${shown(child.value)}) is not in the lead's finding`
            : `${named(child, node)} is not in the lead's finding`,
        );
      else below(child, lead.index);
    }
    const mine = new Set(node.children.map((c) => c.path));
    for (const path of theirs) if (!mine.has(path)) out.push(`the lead's ${path} is not in this finding`);
  };
  below(member.root, -1);
  if (out.length === 0) out.push("it differs from the lead's finding");
  return out.length > NAMED_DIFFERENCES
    ? [...out.slice(0, NAMED_DIFFERENCES), `and ${out.length - NAMED_DIFFERENCES} more differences`]
    : out;
}

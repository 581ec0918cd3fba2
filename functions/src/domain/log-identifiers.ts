import type { Finding } from "./finding/finding.js";
import { findingIocOccurrences } from "./finding/finding-iocs.js";
import type { JsonValue } from "./json.js";

/**
 * The identifiers the exported log tables use, resolved from a finding. A finding names its
 * resource the way Cloud Asset Inventory does (`//container.googleapis.com/…/clusters/shop`,
 * `//cloudresourcemanager.googleapis.com/projects/123456`), and the name it puts first is
 * often not the one a log row carries: VPC flows and syslog name the VM (a GKE node, the
 * instance in `properties.instanceDetails`), never the cluster, the backend service or the
 * project number. Each value here has a kind, so a query slot that wants a VM name can only
 * be filled with a VM name.
 *
 * Sources, in the order they are read: the resource name and type, the display name (for the
 * resource's own kind), the project block, the access block (principal, service account),
 * the Kubernetes block (pods, containers, nodes = VM names), the database and exfiltration
 * blocks, load balancers, and every resource path inside sourceProperties and the verbatim
 * details (`/projects/p/zones/z/instances/vm-1`, `//bigquery.googleapis.com/…/tables/t`).
 */
export type IdentifierKind =
  | "project_id"
  | "project_number"
  | "instance_name"
  | "instance_id"
  | "zone"
  | "cluster"
  | "location"
  | "namespace"
  | "pod"
  | "container"
  | "principal"
  | "service_account"
  | "service_account_id"
  | "bucket"
  | "dataset"
  | "table"
  | "sql_instance"
  | "backend_service"
  | "group"
  | "perimeter";

export interface LogIdentifier {
  kind: IdentifierKind;
  value: string;
  /** Where in the finding it was read, e.g. "resource.name", "kubernetes.nodes[0].name". */
  from: string;
}

export interface LogIdentifiers {
  /** Every identifier, one per kind and value, first source kept. */
  all: LogIdentifier[];
  /** The kind of the finding's own resource (what `resource.name` names), when known. */
  resourceKind?: IdentifierKind;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,254}$/;

class Book {
  readonly all: LogIdentifier[] = [];
  add(kind: IdentifierKind, value: string | undefined, from: string): void {
    const v = value?.trim();
    if (!v || !NAME.test(v)) return;
    if (this.all.some((i) => i.kind === kind && i.value === v)) return;
    this.all.push({ kind, value: v, from });
  }
}

/** A GCE instance name (RFC 1035 label); a numeric segment is the instance id. */
const INSTANCE_NAME = /^[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Resource paths, with or without the `//service.googleapis.com` prefix; each captures
 * what the path names. Order matters: the most specific path wins.
 */
const PATHS: readonly {
  re: RegExp;
  read: (m: RegExpExecArray, book: Book, from: string) => IdentifierKind;
}[] = [
  {
    re: /projects\/([^/\s]+)\/(?:zones|locations)\/([^/\s]+)\/clusters\/([^/\s]+)/,
    read: (m, b, from) => {
      b.add("location", m[2], from);
      b.add("cluster", m[3], from);
      return "cluster";
    },
  },
  {
    re: /projects\/([^/\s]+)\/zones\/([^/\s]+)\/instances\/([^/\s?]+)/,
    read: (m, b, from) => {
      b.add("zone", m[2], from);
      const v = m[3] ?? "";
      b.add(/^\d+$/.test(v) ? "instance_id" : "instance_name", v, from);
      return /^\d+$/.test(v) ? "instance_id" : "instance_name";
    },
  },
  {
    re: /cloudsql\.googleapis\.com\/projects\/([^/\s]+)\/instances\/([^/\s]+)/,
    read: (m, b, from) => {
      b.add("sql_instance", m[2], from);
      return "sql_instance";
    },
  },
  {
    re: /projects\/([^/\s]+)\/datasets\/([^/\s]+)\/tables\/([^/\s]+)/,
    read: (m, b, from) => {
      b.add("dataset", m[2], from);
      b.add("table", m[3], from);
      return "table";
    },
  },
  {
    re: /projects\/([^/\s]+)\/datasets\/([^/\s]+)/,
    read: (m, b, from) => {
      b.add("dataset", m[2], from);
      return "dataset";
    },
  },
  {
    re: /projects\/([^/\s]+)\/(?:global|regions\/[^/\s]+)\/backendServices\/([^/\s]+)/,
    read: (m, b, from) => {
      b.add("backend_service", m[2], from);
      return "backend_service";
    },
  },
  {
    re: /storage\.googleapis\.com\/(?:projects\/_\/buckets\/)?([a-z0-9][a-z0-9._-]{1,221}[a-z0-9])(?:\/|$)/,
    read: (m, b, from) => {
      b.add("bucket", m[1], from);
      return "bucket";
    },
  },
  {
    re: /projects\/_\/buckets\/([a-z0-9][a-z0-9._-]{1,221}[a-z0-9])/,
    read: (m, b, from) => {
      b.add("bucket", m[1], from);
      return "bucket";
    },
  },
  {
    re: /serviceAccounts\/([^/\s]+)/,
    read: (m, b, from) => {
      const v = m[1] ?? "";
      const kind = /^\d+$/.test(v) ? "service_account_id" : "service_account";
      b.add(kind, v, from);
      return kind;
    },
  },
  {
    re: /servicePerimeters\/([^/\s]+)/,
    read: (m, b, from) => {
      b.add("perimeter", m[1], from);
      return "perimeter";
    },
  },
  {
    re: /cloudidentity\.googleapis\.com\/groups\/([^/\s]+)/,
    read: (m, b, from) => {
      b.add("group", m[1], from);
      return "group";
    },
  },
];

/** The project a resource path names: a number is the project number, anything else its id. */
function projectOf(path: string, book: Book, from: string): void {
  const m = /projects\/([^/\s]+)/.exec(path);
  const v = m?.[1];
  if (!v || v === "_" || v === "-") return;
  book.add(/^\d+$/.test(v) ? "project_number" : "project_id", v, from);
}

function readPath(path: string, book: Book, from: string): IdentifierKind | undefined {
  projectOf(path, book, from);
  for (const { re, read } of PATHS) {
    const m = re.exec(path);
    if (m) return read(m, book, from);
  }
  return undefined;
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asArray(value: JsonValue | undefined): JsonValue[] {
  return Array.isArray(value) ? value : [];
}

function str(value: JsonValue | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The Kubernetes block (v1 Finding.kubernetes): pods, their containers, and nodes, which are VMs. */
function readKubernetes(k: JsonValue | undefined, book: Book): void {
  if (!isObject(k)) return;
  asArray(k.pods).forEach((pod, i) => {
    if (!isObject(pod)) return;
    book.add("namespace", str(pod.ns), `kubernetes.pods[${i}].ns`);
    book.add("pod", str(pod.name), `kubernetes.pods[${i}].name`);
    asArray(pod.containers).forEach((c, j) => {
      if (isObject(c)) book.add("container", str(c.name), `kubernetes.pods[${i}].containers[${j}].name`);
    });
  });
  const node = (n: JsonValue, from: string) => {
    const name = isObject(n) ? str(n.name) : undefined;
    // A GKE node is a Compute Engine VM: its name is what flows and syslog carry.
    if (name && INSTANCE_NAME.test(name)) book.add("instance_name", name, from);
  };
  asArray(k.nodes).forEach((n, i) => {
    node(n, `kubernetes.nodes[${i}].name`);
  });
  asArray(k.nodePools).forEach((pool, i) => {
    if (isObject(pool))
      asArray(pool.nodes).forEach((n, j) => {
        node(n, `kubernetes.nodePools[${i}].nodes[${j}].name`);
      });
  });
  asArray(k.objects).forEach((o, i) => {
    if (isObject(o)) book.add("namespace", str(o.ns), `kubernetes.objects[${i}].ns`);
  });
}

/** Every string in free-form JSON that is a resource path. */
function readPaths(root: JsonValue | undefined, rootPath: string, book: Book): void {
  const stack: { value: JsonValue; path: string }[] =
    root === undefined ? [] : [{ value: root, path: rootPath }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: JsonValue; path: string };
    if (typeof value === "string") {
      if (/projects\/|buckets\/|serviceAccounts\/|clusters\/|servicePerimeters\/|groups\//.test(value))
        readPath(value, book, path);
      continue;
    }
    if (Array.isArray(value))
      value.forEach((v, i) => {
        stack.push({ value: v, path: `${path}[${i}]` });
      });
    else if (isObject(value))
      for (const [k, v] of Object.entries(value)) stack.push({ value: v, path: `${path}.${k}` });
  }
}

/** Resource types (Cloud Asset Inventory) → the kind the display name is. */
const TYPE_KIND: readonly [RegExp, IdentifierKind][] = [
  [/container\.Cluster$/i, "cluster"],
  [/compute\.Instance$/i, "instance_name"],
  [/sql\.Instance$|sqladmin/i, "sql_instance"],
  [/storage\.Bucket$/i, "bucket"],
  [/bigquery\.Dataset$/i, "dataset"],
  [/bigquery\.Table$/i, "table"],
  [/BackendService$/i, "backend_service"],
  [/iam\.ServiceAccount$/i, "service_account"],
  [/resourcemanager\.Project$/i, "project_id"],
];

function member(value: string): string {
  return value.replace(/^(?:deleted:)?(?:user|serviceAccount|group|domain):/i, "");
}

/** Resolves every log-table identifier a finding names; see the module comment. */
export function resolveLogIdentifiers(finding: Finding): LogIdentifiers {
  const book = new Book();
  const resourceKind = readPath(finding.resource.name, book, "resource.name");
  const typed = TYPE_KIND.find(([re]) => re.test(finding.resource.type ?? ""))?.[1];
  const display = finding.resource.displayName;
  // The display name is the resource's own name; only where the type or the path says what it is.
  const displayKind = typed ?? (resourceKind === "instance_id" ? "instance_name" : resourceKind);
  if (display && displayKind) {
    if (displayKind !== "instance_name" || INSTANCE_NAME.test(display))
      book.add(displayKind, display, "resource.displayName");
  }
  if (finding.resource.projectDisplayName)
    book.add("project_id", finding.resource.projectDisplayName, "resource.projectDisplayName");
  if (finding.resource.project) projectOf(finding.resource.project, book, "resource.project");
  const principal = finding.access?.principalEmail;
  if (principal) {
    book.add("principal", principal, "access.principalEmail");
    if (/\.gserviceaccount\.com$/i.test(principal))
      book.add("service_account", principal, "access.principalEmail");
  }
  finding.iamBindings.forEach((b, i) => {
    if (b.member && /serviceAccount:/i.test(b.member))
      book.add("service_account", member(b.member), `iamBindings[${i}].member`);
  });
  const details = finding.details ?? {};
  readKubernetes(details.kubernetes, book);
  asArray(details.containers).forEach((c, i) => {
    if (isObject(c)) book.add("container", str(c.name), `containers[${i}].name`);
  });
  asArray(details.loadBalancers).forEach((lb, i) => {
    // A load balancer's name is its URL map or forwarding rule, not a backend service.
    if (isObject(lb)) readPath(str(lb.name) ?? "", book, `loadBalancers[${i}].name`);
  });
  const database = details.database;
  if (isObject(database)) {
    readPath(str(database.name) ?? "", book, "database.name");
    const dn = str(database.displayName);
    if (dn && !/\//.test(dn)) book.add("sql_instance", dn, "database.displayName");
  }
  readPaths(details.exfiltration, "exfiltration", book);
  readPaths(finding.sourceProperties, "sourceProperties", book);
  for (const [key, value] of Object.entries(details))
    if (!["kubernetes", "exfiltration", "database"].includes(key)) readPaths(value, key, book);
  const found = findingIocOccurrences(finding);
  for (const r of found.resources) readPath(r.name, book, r.path);
  // Principals the finding names elsewhere: granted or added members, delegates.
  for (const ioc of found.iocs)
    if (ioc.type === "principal") {
      book.add("principal", ioc.value, ioc.path ?? "finding");
      if (/\.gserviceaccount\.com$/i.test(ioc.value))
        book.add("service_account", ioc.value, ioc.path ?? "finding");
    }
  return { all: book.all, ...(resourceKind || typed ? { resourceKind: resourceKind ?? typed } : {}) };
}

/** The values of one kind, in the order they were found. */
export function identifiersOf(ids: LogIdentifiers, kind: IdentifierKind): string[] {
  return ids.all.filter((i) => i.kind === kind).map((i) => i.value);
}

/** The kinds a value was resolved as (empty when the finding never names it as an identifier). */
export function kindsOfValue(ids: LogIdentifiers, value: string): IdentifierKind[] {
  const v = value.trim().toLowerCase();
  return [...new Set(ids.all.filter((i) => i.value.toLowerCase() === v).map((i) => i.kind))];
}

/**
 * Which identifier kind each runbook parameter takes. Parameters not listed are not
 * identifiers (IPs, domains, terms, times) or take any part of a resource name (`resource`).
 */
export const PARAM_KINDS: Readonly<Record<string, readonly IdentifierKind[]>> = {
  instance: ["instance_name"],
  bucket: ["bucket"],
  principal: ["principal", "service_account"],
  service_account: ["service_account"],
  backend_service: ["backend_service"],
  cluster: ["cluster"],
  namespace: ["namespace"],
  pod: ["pod"],
  dataset: ["dataset"],
  sql_instance: ["sql_instance"],
  project: ["project_id"],
};

/** The identifiers as lines for a prompt: "instance_name: gke-…-x7kq (kubernetes.nodes[0].name)". */
export function identifierLines(ids: LogIdentifiers): string[] {
  return ids.all.map((i) => `${i.kind}: ${i.value} (from ${i.from})`);
}

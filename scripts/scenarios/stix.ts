import type { Rng } from "./prng.js";

/** Builds a STIX 2.1 bundle the way MISP/OpenCTI exports look, with deterministic ids. */
type StixObject = Record<string, unknown> & { id: string; type: string };

export interface IndicatorSpec {
  name: string;
  pattern: string;
  types: string[];
  description?: string;
  confidence?: number;
  labels?: string[];
  validFrom: string;
  validUntil?: string;
  created?: string;
  modified?: string;
}

export class StixBundle {
  private readonly objects: StixObject[] = [];
  readonly producer: string;

  constructor(
    private readonly rng: Rng,
    private readonly created: string,
    producerName: string,
  ) {
    this.producer = this.add("identity", { name: producerName, identity_class: "organization" });
  }

  private add(
    type: string,
    body: Record<string, unknown>,
    times?: { created?: string; modified?: string },
  ): string {
    const id = `${type}--${this.rng.uuid()}`;
    this.objects.push({
      type,
      spec_version: "2.1",
      id,
      created: times?.created ?? this.created,
      modified: times?.modified ?? times?.created ?? this.created,
      ...(type === "identity" ? {} : { created_by_ref: this.producer }),
      ...body,
    });
    return id;
  }

  indicator(spec: IndicatorSpec): string {
    return this.add(
      "indicator",
      {
        name: spec.name,
        ...(spec.description ? { description: spec.description } : {}),
        indicator_types: spec.types,
        pattern: spec.pattern,
        pattern_type: "stix",
        valid_from: spec.validFrom,
        ...(spec.validUntil ? { valid_until: spec.validUntil } : {}),
        ...(spec.confidence !== undefined ? { confidence: spec.confidence } : {}),
        ...(spec.labels ? { labels: spec.labels } : {}),
      },
      { created: spec.created, modified: spec.modified },
    );
  }

  malware(name: string, malwareTypes: string[], description: string): string {
    return this.add("malware", { name, is_family: true, malware_types: malwareTypes, description });
  }

  campaign(name: string, description: string): string {
    return this.add("campaign", { name, description });
  }

  threatActor(name: string, description: string): string {
    return this.add("threat-actor", { name, description, threat_actor_types: ["crime-syndicate"] });
  }

  relate(source: string, type: string, target: string): string {
    return this.add("relationship", { relationship_type: type, source_ref: source, target_ref: target });
  }

  opinion(objectRefs: string[], opinion: string, explanation: string, created?: string): string {
    return this.add("opinion", { opinion, explanation, object_refs: objectRefs }, { created });
  }

  toJson(): string {
    return `${JSON.stringify({ type: "bundle", id: `bundle--${this.rng.uuid()}`, objects: this.objects }, null, 2)}\n`;
  }
}

/** Unrelated indicators any real feed carries, so a lookup has to discriminate. */
export function addFeedNoise(
  bundle: StixBundle,
  rng: Rng,
  validFrom: string,
  avoid: ReadonlySet<string>,
): void {
  const families = [
    bundle.malware("Mirai", ["bot", "ddos"], "IoT botnet family."),
    bundle.malware("AgentTesla", ["spyware", "remote-access-trojan"], "Credential-stealing .NET RAT."),
    bundle.malware(
      "Cobalt Strike",
      ["remote-access-trojan"],
      "Commercial C2 framework abused by intrusion sets.",
    ),
  ];
  const words = ["cdn", "update", "sync", "api", "static", "img", "secure", "login", "mail", "portal"];
  const tlds = ["xyz", "top", "ru", "cc", "info", "online", "site"];
  let made = 0;
  while (made < 36) {
    const kind = rng.pick(["ip", "domain", "hash"] as const);
    const value =
      kind === "ip"
        ? `${rng.pick(["192.0.2", "198.51.100", "203.0.113"])}.${rng.int(1, 254)}`
        : kind === "domain"
          ? `${rng.pick(words)}-${rng.pick(words)}${rng.int(1, 99)}.${rng.pick(tlds)}`
          : rng.hex(64);
    if (avoid.has(value)) continue;
    const pattern =
      kind === "ip"
        ? `[ipv4-addr:value = '${value}']`
        : kind === "domain"
          ? `[domain-name:value = '${value}']`
          : `[file:hashes.'SHA-256' = '${value}']`;
    const indicator = bundle.indicator({
      name: `${kind === "hash" ? "Sample" : "Infrastructure"} ${value.slice(0, 24)}`,
      pattern,
      types: [rng.pick(["malicious-activity", "malicious-activity", "anomalous-activity", "compromised"])],
      confidence: rng.int(40, 95),
      validFrom,
    });
    bundle.relate(indicator, "indicates", rng.pick(families));
    made += 1;
  }
}

import type { ThreatIntel } from "../ports/threat-intel.js";

/**
 * A threat-intel provider built on first lookup. Reading and validating a STIX bundle at
 * start-up made one bad file stop every function of the process; here it fails the lookup
 * that needed it (a failed tool call the investigation records), and the next lookup tries
 * again.
 */
export function lazyThreatIntel(name: string, build: () => ThreatIntel): ThreatIntel {
  let built: ThreatIntel | undefined;
  return {
    name,
    lookup: async (indicator, options) => {
      built ??= build();
      return built.lookup(indicator, options);
    },
  };
}

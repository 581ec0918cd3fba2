import type { IntelVerdict } from "../../ports/threat-intel.js";
import type { OtxSection } from "./indicator.js";
import type { OtxGeneral, OtxPulse } from "./response.js";

/**
 * How an OTX `general` answer becomes a verdict. OTX pulses are written by anyone with an
 * account, so a single pulse is a lead, not a conviction; OTX's own whitelists (validation)
 * and community false-positive reports outrank pulses. The rules, in order:
 *
 * 1. validation or false_positive entries → benign (whitelisted, popular or reported as a
 *    false positive). Pulses that still name it are counted in the notes, not in the verdict.
 * 2. no pulse → unknown (OTX has nothing; that is not "safe").
 * 3. a *current* pulse ties it to a malware family or an adversary → malicious.
 * 4. `maliciousPulseCount` or more current pulses → malicious.
 * 5. otherwise (few current pulses without context, or only stale ones) → suspicious.
 *
 * A pulse is current when it was modified within `staleAfterDays` of `now`. Addresses and
 * names change hands, so an IP listed two years ago says little about it today; a file
 * hash does not change, so for hashes every pulse is current.
 */
export interface OtxRules {
  maliciousPulseCount: number;
  staleAfterDays: number;
}

export const OTX_RULES: OtxRules = { maliciousPulseCount: 3, staleAfterDays: 365 };

export interface OtxAssessment {
  verdict: IntelVerdict;
  notes: string[];
  /** Pulses that count, newest first. */
  current: OtxPulse[];
  stale: OtxPulse[];
  whitelistedBy: string[];
}

/** OTX prints UTC times without a zone and with microseconds ("2025-05-02T10:11:12.123000"). */
export function otxTime(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const withZone = /(?:Z|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text}Z`;
  const t = Date.parse(withZone.replace(/(\.\d{3})\d+/, "$1"));
  return Number.isNaN(t) ? undefined : t;
}

function pulseTime(pulse: OtxPulse): number | undefined {
  return otxTime(pulse.modified) ?? otxTime(pulse.created);
}

export function assessOtx(
  general: OtxGeneral,
  context: { section: OtxSection; now: number; rules?: OtxRules },
): OtxAssessment {
  const rules = context.rules ?? OTX_RULES;
  const pulses = general.pulse_info.pulses;
  const count = Math.max(general.pulse_info.count ?? 0, pulses.length);
  const cutoff = context.now - rules.staleAfterDays * 86_400_000;
  const isCurrent = (p: OtxPulse) => {
    if (context.section === "file") return true;
    const t = pulseTime(p);
    return t !== undefined && t >= cutoff;
  };
  const byTime = [...pulses].sort((a, b) => (pulseTime(b) ?? 0) - (pulseTime(a) ?? 0));
  const current = byTime.filter(isCurrent);
  const stale = byTime.filter((p) => !isCurrent(p));
  const whitelistedBy = [
    ...general.validation.map((v) => v.name ?? v.source ?? v.message ?? "validation"),
    ...(general.false_positive.length > 0 ? ["reported false positive"] : []),
  ];
  const notes: string[] = [];

  if (whitelistedBy.length > 0) {
    notes.push(`whitelisted by OTX (${whitelistedBy.join(", ")})`);
    if (count > 0) notes.push(`${count} pulse(s) still name it; OTX's whitelist outranks them`);
    return { verdict: "benign", notes, current, stale, whitelistedBy };
  }
  if (count === 0) return { verdict: "unknown", notes: ["in no OTX pulse"], current, stale, whitelistedBy };
  if (pulses.length === 0) {
    notes.push(`OTX counts ${count} pulse(s) but listed none to weigh`);
    return { verdict: "suspicious", notes, current, stale, whitelistedBy };
  }
  const withContext = current.filter((p) => p.malware_families.length > 0 || (p.adversary ?? "").trim());
  if (withContext.length > 0) {
    notes.push(`${withContext.length} current pulse(s) tie it to malware or an adversary`);
    return { verdict: "malicious", notes, current, stale, whitelistedBy };
  }
  if (current.length >= rules.maliciousPulseCount) {
    notes.push(`named in ${current.length} current pulses`);
    return { verdict: "malicious", notes, current, stale, whitelistedBy };
  }
  notes.push(
    current.length > 0
      ? `named in ${current.length} current pulse(s) without malware or adversary context`
      : `only in pulses older than ${rules.staleAfterDays} days`,
  );
  return { verdict: "suspicious", notes, current, stale, whitelistedBy };
}

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;

export function isIpv4(value: string): boolean {
  return IPV4.test(value);
}

/**
 * Private, loopback, link-local, CGNAT and multicast ranges are the workload's own side of
 * a connection: worth reporting, never worth an intel lookup.
 */
export function isPublicIp(value: string): boolean {
  if (!isIpv4(value)) return value.includes(":") && !/^(fe80|fc|fd|::1$)/i.test(value);
  const [a = 0, b = 0] = value.split(".").map(Number);
  if (a === 10 || a === 127 || a === 0 || a >= 224) return false;
  if (a === 172 && b >= 16 && b <= 31) return false;
  if (a === 192 && b === 168) return false;
  if (a === 169 && b === 254) return false;
  if (a === 100 && b >= 64 && b <= 127) return false;
  return true;
}

/** "serviceAccount:ci@p.iam.gserviceaccount.com" → "ci@p.iam.gserviceaccount.com". */
export function bareMember(member: string): string {
  return member.replace(/^(user|serviceAccount|group|domain|deleted:\w+):/i, "");
}

export function emailDomain(value: string): string | undefined {
  const at = value.lastIndexOf("@");
  return at >= 0 ? value.slice(at + 1).toLowerCase() : undefined;
}

/** Google-managed identities (service agents, project SAs) belong to whoever owns the project. */
export function isGoogleManagedDomain(domain: string): boolean {
  return /(^|\.)gserviceaccount\.com$|(^|\.)iam\.gserviceaccount\.com$|(^|\.)google\.com$|(^|\.)googleusercontent\.com$/.test(
    domain,
  );
}

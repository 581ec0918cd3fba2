import { BlockList, isIP } from "node:net";
import cloud from "./google-ip-ranges/cloud.json" with { type: "json" };
import goog from "./google-ip-ranges/goog.json" with { type: "json" };

/**
 * Google's own service addresses, from the ranges Google publishes (google-ip-ranges/SOURCE.md):
 * goog.json lists every range Google uses, cloud.json the ones Google Cloud customers' resources
 * use. An address in goog.json and not in cloud.json is a Google front end (Search, APIs, DNS):
 * it says nothing about an attacker. An address in cloud.json can be anyone's VM.
 */

interface PublishedRanges {
  prefixes: { ipv4Prefix?: string; ipv6Prefix?: string }[];
}

function blockList(ranges: PublishedRanges): BlockList {
  const list = new BlockList();
  for (const p of ranges.prefixes) {
    const prefix = p.ipv4Prefix ?? p.ipv6Prefix;
    if (!prefix) continue;
    const [net = "", bits = ""] = prefix.split("/");
    list.addSubnet(net, Number(bits), p.ipv4Prefix ? "ipv4" : "ipv6");
  }
  return list;
}

const GOOGLE = blockList(goog as PublishedRanges);
const CLOUD_CUSTOMERS = blockList(cloud as PublishedRanges);

/** An address Google uses for its own services: in goog.json, not in cloud.json. */
export function isGoogleServiceAddress(ip: string): boolean {
  const version = isIP(ip);
  if (version === 0) return false;
  const family = version === 4 ? "ipv4" : "ipv6";
  return GOOGLE.check(ip, family) && !CLOUD_CUSTOMERS.check(ip, family);
}

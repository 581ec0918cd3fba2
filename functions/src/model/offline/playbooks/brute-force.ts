import type { Subject } from "../subject.js";
import { commonConstraints, intelStep, opt, type Playbook, present, windowParams } from "./types.js";

export function bruteForcePlaybook(s: Subject): Playbook {
  const w = windowParams(s.window);
  const attackers = s.remoteIps;
  const target = s.instance ?? s.resourceShort;
  return {
    objective: `Did the login attempts against ${target}${attackers.length ? ` from ${attackers.join(", ")}` : ""} succeed, and what happened after?`,
    successCriteria: [
      "Counts of failed and accepted logins from the source IPs, with user names and times.",
      "Reputation of the source IPs (scanner, botnet, Tor).",
      "Post-login activity on the host if any login was accepted.",
    ],
    constraints: commonConstraints(s),
    steps: present([
      {
        id: "ssh-auth",
        intent: { kind: "ssh_auth", params: { ...opt("instance", target), ...opt("ips", attackers), ...w } },
        expected:
          "Many failures and no accepted login from the source means the attempt failed; an accepted login after failures means a compromise.",
      },
      attackers.length > 0 && {
        id: "flows-attacker",
        intent: {
          kind: "flows",
          params: {
            ...opt("ips", attackers),
            ...opt("instance", s.instance),
            ...opt("ports", s.ports.map(String)),
            ...w,
          },
        },
        expected:
          "Inbound connections from the source IPs to the login port: volume and duration; a long session after the attempts hints at success.",
      },
      intelStep(
        "intel-attacker",
        s,
        "Source IPs tagged as scanners/brute-forcers (noise) or as known attacker infrastructure.",
        {
          ips: attackers,
          domains: [],
          hashes: [],
        },
      ),
      {
        id: "post-login",
        intent: {
          kind: "host_logs",
          params: {
            ...opt("instance", target),
            terms: ["sudo", "useradd", "authorized_keys", "crontab"],
            ...w,
          },
        },
        expected:
          "Sudo, new users, new keys or cron entries after an accepted login; nothing if no login succeeded.",
        dependsOn: ["ssh-auth"],
      },
    ]),
  };
}

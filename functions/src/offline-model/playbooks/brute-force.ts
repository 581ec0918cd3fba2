import type { Subject } from "../subject.js";
import {
  applicableSteps,
  commonConstraints,
  intelStep,
  type Playbook,
  paramIfPresent,
  windowParams,
} from "./types.js";

export function bruteForcePlaybook(subject: Subject): Playbook {
  const w = windowParams(subject.window);
  const attackers = subject.remoteIps;
  // Only a VM name goes where syslog names hosts; without one the auth log is searched by source.
  const target = subject.instance;
  return {
    objective: `Did the login attempts against ${target ?? subject.auditResource}${attackers.length ? ` from ${attackers.join(", ")}` : ""} succeed, and what happened after?`,
    successCriteria: [
      "Counts of failed and accepted logins from the source IPs, with user names and times.",
      "Reputation of the source IPs (scanner, botnet, Tor).",
      "Post-login activity on the host if any login was accepted.",
    ],
    constraints: commonConstraints(subject),
    steps: applicableSteps([
      {
        id: "ssh-auth",
        intent: {
          kind: "ssh_auth",
          params: { ...paramIfPresent("instance", target), ...paramIfPresent("ips", attackers), ...w },
        },
        expected:
          "Many failures and no accepted login from the source means the attempt failed; an accepted login after failures means a compromise.",
      },
      attackers.length > 0 && {
        id: "flows-attacker",
        intent: {
          kind: "flows",
          params: {
            ...paramIfPresent("ips", attackers),
            ...paramIfPresent("instance", subject.instance),
            ...paramIfPresent("ports", subject.ports.map(String)),
            ...w,
          },
        },
        expected:
          "Inbound connections from the source IPs to the login port: volume and duration; a long session after the attempts hints at success.",
      },
      intelStep(
        "intel-attacker",
        subject,
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
            ...paramIfPresent("instance", target),
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

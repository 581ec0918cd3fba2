import type { Subject } from "../subject.js";
import { applicableSteps, commonConstraints, type Playbook, paramIfPresent, windowParams } from "./types.js";

/**
 * Reader IPs are looked up by the reflector's intel-new steps once bucket-access has found
 * them; a planned intel step with no value yet would run nothing when nobody read the bucket.
 */
export function publicBucketPlaybook(subject: Subject): Playbook {
  const w = windowParams(subject.window);
  // Only a bucket name goes in a bucket slot; a finding on anything else gets no bucket query.
  const bucket = subject.bucket;
  return {
    objective: `Is bucket ${bucket ?? subject.auditResource} really readable by anyone, was that intended (a public website), and was non-public data read anonymously?`,
    successCriteria: [
      "The policy change that made the bucket public: who, when, which member (allUsers, allAuthenticatedUsers).",
      "Data-access entries: anonymous versus authenticated reads, which objects, from which IPs.",
      "Whether the objects read look like public web assets or private data.",
    ],
    constraints: commonConstraints(subject),
    steps: applicableSteps([
      bucket && {
        id: "bucket-policy",
        intent: {
          kind: "bucket_policy",
          params: { bucket: [bucket], ...paramIfPresent("project", subject.project), ...w },
        },
        expected:
          "A setIamPolicy/ACL change adding allUsers or allAuthenticatedUsers, with the principal who made it.",
      },
      bucket && {
        id: "bucket-access",
        intent: { kind: "bucket_access", params: { bucket: [bucket], ...w } },
        expected:
          "Anonymous reads of objects prove exposure was used; only authenticated reads or only public web assets point to benign.",
      },
    ]),
  };
}

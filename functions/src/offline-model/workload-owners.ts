import { z } from "zod";

/**
 * The controllers behind a GKE finding's workload, by name: the objects the finding names
 * (kubernetes.objects), and each pod's owners read from its name. A controller names its pods
 * `<owner>-<suffix>` with a five-character suffix drawn from Kubernetes' generated-name
 * alphabet (k8s.io/apiserver pkg/storage/names/generate.go: randomLength 5; the characters are
 * k8s.io/apimachinery pkg/util/rand's `alphanums`, no vowels and no 0, 1, 3, so no word can be
 * one). A Deployment's ReplicaSet is itself `<deployment>-<pod-template-hash>`, the hash in the
 * same alphabet. So a DaemonSet's pod gives its DaemonSet, a Deployment's pod its ReplicaSet
 * and then its Deployment; a name without a generated suffix gives nothing (a bare pod, a
 * StatefulSet's ordinal pod). The Kubernetes audit log names each controller in resourceName
 * (…/namespaces/<ns>/deployments/<name>), so the names find its rollouts.
 */
const GENERATED = /^[bcdfghjklmnpqrstvwxz2456789]+$/;
const RANDOM_SUFFIX_LENGTH = 5;
const MAX_HASH_LENGTH = 10;

const KubernetesSchema = z.object({
  objects: z.array(z.object({ name: z.string().min(1) }).passthrough()).optional(),
  pods: z.array(z.object({ name: z.string().min(1) }).passthrough()).optional(),
});

/** The pod's owners from its name, the outermost (a Deployment) first. */
export function podOwners(pod: string): string[] {
  const parts = pod.split("-");
  const suffix = parts.at(-1) ?? "";
  if (parts.length < 2 || suffix.length !== RANDOM_SUFFIX_LENGTH || !GENERATED.test(suffix)) return [];
  const owner = parts.slice(0, -1);
  const hash = owner.at(-1) ?? "";
  const outer =
    owner.length >= 2 && hash.length <= MAX_HASH_LENGTH && GENERATED.test(hash)
      ? [owner.slice(0, -1).join("-")]
      : [];
  return [...outer, owner.join("-")];
}

/** The finding's Kubernetes objects, then its pods' owners, without repeats. */
export function workloadOwners(details: Readonly<Record<string, unknown>>): string[] {
  const parsed = KubernetesSchema.safeParse(details.kubernetes);
  if (!parsed.success) return [];
  const objects = (parsed.data.objects ?? []).map((o) => o.name);
  const owners = (parsed.data.pods ?? []).flatMap((p) => podOwners(p.name));
  return [...new Set([...objects, ...owners])];
}

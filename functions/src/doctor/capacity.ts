/**
 * Capacity from the same numbers (issue 36, decision 0048): each running investigation may have
 * `fanout[name]` requests in flight to a function at once (workflows/fanout.ts reads it from
 * the YAML's parallel limits), and the governor runs `governorMaxConcurrent` investigations. A
 * function serves max_instances × concurrency requests at once; past that Cloud Run queues a
 * request up to 10 s and answers 429
 * (https://cloud.google.com/run/docs/about-instance-autoscaling#exceeding-max-instances).
 * The same rule as the precondition in terraform/functions.tf, for the local stack (which
 * refuses to start below it, as `terraform plan` does) and `ferret doctor` (which reads the
 * deployed numbers).
 */
export interface InstanceCap {
  maxInstances: number;
  /** Requests per instance; 1 when unset (Cloud Functions 2nd gen's default). */
  concurrency: number;
}

export interface CapacityVerdict {
  name: string;
  /** Requests the function serves at once. */
  serves: number;
  /** Requests the governor's investigations may send it at once. */
  needs: number;
  ok: boolean;
  /** One line a deployer can act on. */
  line: string;
}

export function capacityVerdicts(
  caps: Readonly<Record<string, InstanceCap | undefined>>,
  governorMaxConcurrent: number,
  fanout: Readonly<Record<string, number>>,
): CapacityVerdict[] {
  return Object.entries(fanout).map(([name, perInvestigation]) => {
    const cap = caps[name];
    const needs = governorMaxConcurrent * perInvestigation;
    if (!cap)
      return {
        name,
        serves: 0,
        needs,
        ok: false,
        line: `${name}: its instance cap is unknown (not deployed?)`,
      };
    const serves = cap.maxInstances * cap.concurrency;
    const how = `${cap.maxInstances} instance(s) × ${cap.concurrency} request(s) = ${serves} at once`;
    const want = `governor ${governorMaxConcurrent} investigations × fan-out ${perInvestigation} = ${needs}`;
    return serves >= needs
      ? { name, serves, needs, ok: true, line: `${name}: ${how} ≥ ${want}` }
      : {
          name,
          serves,
          needs,
          ok: false,
          line: `${name}: ${how} < ${want}; requests past the cap wait up to 10 s, then Cloud Run answers 429`,
        };
  });
}

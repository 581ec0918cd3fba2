import type { TestContext } from "node:test";

/**
 * The measured figures of the fault and security tests. Each is printed as a test
 * diagnostic (`# figure <name>: <value>` in the TAP/spec output) so a run shows the numbers
 * docs/reliability.md and docs/security.md quote, not only pass/fail.
 */
export function figure(t: TestContext, name: string, value: string | number): void {
  t.diagnostic(`figure ${name}: ${value}`);
}

/**
 * Generates terraform/templates/investigate.yaml.tftpl from workflows/investigate.yaml.
 *
 * Terraform deploys the workflow with templatefile(), which would evaluate the Workflows
 * expressions `${...}` (and `%{...}`) itself. The template therefore holds the YAML with every
 * `${` written as `$${` and every `%{` as `%%{`; templatefile() turns them back, so the deployed
 * source is byte for byte the YAML the local runner executes
 * (test/unit/terraform/workflow.test.ts checks this).
 *
 *   npx tsx scripts/render-workflow-template.ts          write the template
 *   npx tsx scripts/render-workflow-template.ts --check  exit 1 if it is missing or stale
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const WORKFLOW_YAML = join(REPO_ROOT, "workflows", "investigate.yaml");
export const WORKFLOW_TEMPLATE = join(REPO_ROOT, "terraform", "templates", "investigate.yaml.tftpl");

/** Escapes Terraform template sequences so that templatefile() reproduces `source` exactly. */
export function toTerraformTemplate(source: string): string {
  return source.replace(/\$\{|%\{/g, (sequence) => `${sequence[0]}${sequence}`);
}

function main(argv: readonly string[]): number {
  const check = argv.includes("--check");
  const shown = (path: string): string => relative(process.cwd(), path) || path;
  if (!existsSync(WORKFLOW_YAML)) {
    process.stderr.write(`${shown(WORKFLOW_YAML)} does not exist; nothing to render.\n`);
    return 1;
  }
  const template = toTerraformTemplate(readFileSync(WORKFLOW_YAML, "utf8"));
  if (check) {
    const current = existsSync(WORKFLOW_TEMPLATE) ? readFileSync(WORKFLOW_TEMPLATE, "utf8") : undefined;
    if (current === template) return 0;
    process.stderr.write(
      `${shown(WORKFLOW_TEMPLATE)} is ${current === undefined ? "missing" : "out of date"}; ` +
        "run: npx tsx scripts/render-workflow-template.ts\n",
    );
    return 1;
  }
  mkdirSync(dirname(WORKFLOW_TEMPLATE), { recursive: true });
  writeFileSync(WORKFLOW_TEMPLATE, template);
  process.stdout.write(`wrote ${shown(WORKFLOW_TEMPLATE)}\n`);
  return 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}

import { relative } from "node:path";
import type { Issue, IssueType, Reporter } from "knip";

/**
 * How `npm run check:dead-code` prints what knip found: under each kind of problem, what to
 * do about it, then one line per place (file:line and the name). knip's own reporters list the
 * places without saying what to do, and this check fails `npm test` for people who did not set
 * it up. See docs/decisions/0037-dead-code-and-cycle-check.md.
 */
const ADVICE: Partial<Record<IssueType, [title: string, what: string]>> = {
  files: [
    "Files nothing imports",
    "Delete them, or import them from where they are meant to be used (an entry point that is run by path belongs in knip.jsonc's `entry`).",
  ],
  exports: [
    "Exports nothing imports",
    "Delete each one; if its own file uses it, drop only the `export` keyword.",
  ],
  duplicates: ["One thing exported under two names", "Keep one name and delete the other export."],
  dependencies: [
    "Dependencies nothing imports",
    "Remove them from package.json `dependencies` (npm uninstall NAME in your own node_modules copy).",
  ],
  devDependencies: [
    "devDependencies nothing imports",
    "Remove them from package.json `devDependencies`, or list them in knip.jsonc's `ignoreDependencies` with the reason if they are loaded in a way knip cannot see.",
  ],
  unlisted: [
    "Packages imported but not in package.json",
    "Add each to package.json (the code must not rely on another package bringing it in).",
  ],
  unresolved: ["Imports that resolve to no file", "Fix the import path."],
  cycles: [
    "Run-time import cycles",
    "These modules import each other (type-only imports do not count). Move what they share into a module of its own that both import.",
  ],
};

const reporter: Reporter = ({ issues, report, cwd }) => {
  const sections: string[] = [];
  let total = 0;
  for (const type of Object.keys(ADVICE) as IssueType[]) {
    const advice = ADVICE[type];
    if (!advice || !report[type]) continue;
    const found = Object.values(issues[type]).flatMap((byName) => Object.values(byName));
    if (found.length === 0) continue;
    total += found.length;
    const [title, what] = advice;
    const lines = found.map((issue) => `  ${place(issue, cwd)}`).sort();
    sections.push(`${title} (${found.length}). ${what}\n${lines.join("\n")}`);
  }
  if (total === 0) return;
  console.log(
    `${sections.join("\n\n")}\n\n` +
      `check:dead-code: ${total} problem(s) above; fix them (each says what to remove) and run \`npm run check:dead-code\` again.`,
  );
};

function place(issue: Issue, cwd: string): string {
  const file = relative(cwd, issue.filePath);
  if (issue.type === "files") return file;
  if (issue.type === "cycles") {
    // knip lists each file of the cycle once; the first one closes it.
    const chain = issue.symbols?.map((s) => s.symbol) ?? issue.symbol.split(" → ");
    return [...chain, chain[0]].join(" → ");
  }
  const at = issue.line === undefined ? file : `${file}:${issue.line}`;
  const name = issue.symbols ? issue.symbols.map((s) => s.symbol).join(", ") : issue.symbol;
  return `${at}  ${name}`;
}

export default reporter;

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fromRoot } from "../../../functions/src/platform/paths.js";

interface Proc {
  pid: number;
  ppid: number;
  pgrp: number;
  state: string;
}

function processes(): Proc[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, "utf8");
        // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
        const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return [{ pid: Number(d), ppid: Number(ppid), pgrp: Number(pgrp), state: state ?? "?" }];
      } catch {
        return [];
      }
    });
}

/**
 * Killing `ferret investigate` (SIGTERM to its pid, as a supervisor or `kill` does) used to
 * leave the emulators (their own process groups) and the function servers running. Now the
 * CLI stops its whole stack and exits 143.
 */
describe("ferret investigate, interrupted", { timeout: 300_000 }, () => {
  it("stops every emulator and server it started", async () => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith("FERRET_") && !k.endsWith("_EMULATOR_HOST")),
    );
    const cli = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        fromRoot("functions/src/cli/main.ts"),
        "investigate",
        fromRoot("examples/scenarios/cryptomining"),
        "--model",
        "offline",
      ],
      { env, cwd: fromRoot(), stdio: ["ignore", "pipe", "pipe"] },
    );
    const exited = new Promise<number | null>((resolve) => cli.once("exit", (code) => resolve(code)));
    let out = "";
    cli.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    cli.stderr.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const pid = cli.pid as number;
    try {
      // Interrupted while the function servers start: the emulators are up, the servers spawned
      // (waiting for them to answer would only make this test slower on a loaded machine).
      for (let waited = 0; !out.includes("function servers under functions-framework"); waited += 200) {
        assert.ok(waited < 240_000, `the emulators did not come up:\n${out}`);
        assert.equal(cli.exitCode, null, `the CLI ended early:\n${out}`);
        await sleep(200);
      }
      await sleep(1_000);
      const children = processes().filter((p) => p.ppid === pid);
      // Firestore and Pub/Sub emulators (gcloud, leaders of their own groups) and 8 servers.
      assert.ok(children.length >= 10, `children: ${JSON.stringify(children)}`);
      const groups = new Set(children.filter((p) => p.pgrp === p.pid).map((p) => p.pgrp));
      assert.ok(groups.size >= 2, "the emulators run in groups of their own");

      cli.kill("SIGTERM");
      const code = await Promise.race([exited, sleep(60_000).then(() => "timeout" as const)]);
      assert.equal(code, 143, out);
      for (let waited = 0; waited < 5_000; waited += 250) {
        const alive = processes().filter(
          (p) => p.state !== "Z" && (children.some((c) => c.pid === p.pid) || groups.has(p.pgrp)),
        );
        if (alive.length === 0) return;
        await sleep(250);
      }
      assert.fail(
        `left running: ${JSON.stringify(processes().filter((p) => p.state !== "Z" && (children.some((c) => c.pid === p.pid) || groups.has(p.pgrp))))}`,
      );
    } finally {
      if (cli.exitCode === null) cli.kill("SIGKILL");
    }
  });
});

import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { createBrotliDecompress } from "node:zlib";

/**
 * The browser for the console's browser tests and the docs' pictures: the headless Chromium
 * that the @sparticuz/chromium npm package carries inside itself (bin/chromium.br), so the
 * README's `npm install` brings it — no download at install time, nothing from apt
 * (docs/decisions/0038-browser-from-npm.md).
 *
 * Not the package's own `executablePath()`: that one inflates to a fixed `$TMPDIR/chromium`
 * and reuses whatever is there, of any version, and two processes starting at once can run a
 * half-written file. Here the binary goes to a directory named after the package's version,
 * written under a private name and renamed into place, so a reader sees all of it or none.
 */
export const CHROMIUM_PACKAGE = "@sparticuz/chromium";

/** Flags for a root user on a machine with no network but loopback (docs/console.md). */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

function packageDir(): string {
  let entry: string;
  try {
    entry = fileURLToPath(import.meta.resolve(CHROMIUM_PACKAGE));
  } catch (error) {
    throw new Error(
      `the browser tests need the ${CHROMIUM_PACKAGE} dev dependency; run \`npm install\` (README, Two commands): ${(error as Error).message}`,
    );
  }
  // build/index.js → the package root.
  return join(dirname(entry), "..");
}

/** Where the inflated binary of this package version lives (outside the repository). */
export function chromiumCacheDir(): string {
  const root = packageDir();
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
  return join(tmpdir(), `ferret-chromium-${version}`);
}

/**
 * The path of an executable headless Chromium, inflating it from the npm package on first
 * use (~200 MB, a few seconds). Fails with what to do on a platform the package has no
 * build for.
 */
export async function chromiumExecutable(): Promise<string> {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `${CHROMIUM_PACKAGE} ships a Chromium for Linux x86-64 only; this is ${process.platform}/${process.arch}, where the console's browser tests cannot run`,
    );
  }
  const source = join(packageDir(), "bin", "chromium.br");
  if (!existsSync(source)) {
    throw new Error(`${source} is missing; reinstall with \`npm install\``);
  }
  const dir = chromiumCacheDir();
  const target = join(dir, "chromium");
  if (existsSync(target)) return target;
  mkdirSync(dir, { recursive: true });
  const partial = join(dir, `.chromium-${process.pid}-${Date.now()}`);
  try {
    await pipeline(
      createReadStream(source),
      createBrotliDecompress(),
      createWriteStream(partial, { mode: 0o755 }),
    );
    renameSync(partial, target);
  } finally {
    rmSync(partial, { force: true });
  }
  return target;
}

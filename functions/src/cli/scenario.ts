import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { InvalidInputError } from "../domain/errors.js";

/**
 * A scenario directory (examples/scenarios/<name>/): notification.json, logs/<table>.jsonl,
 * intel/bundle.json and expected.json. A bare notification file is a scenario with no
 * logs, intel or expectations.
 */
export interface ScenarioInput {
  name: string;
  notification: unknown;
  notificationPath: string;
  logsDir?: string;
  stixBundle?: string;
  expectedPath?: string;
}

export function loadScenario(path: string): ScenarioInput {
  const full = resolve(path);
  if (!existsSync(full)) throw new InvalidInputError(`no such file or directory: ${path}`);
  const isDir = statSync(full).isDirectory();
  const notificationPath = isDir ? join(full, "notification.json") : full;
  if (!existsSync(notificationPath)) throw new InvalidInputError(`${path} has no notification.json`);
  let notification: unknown;
  try {
    notification = JSON.parse(readFileSync(notificationPath, "utf8"));
  } catch (error) {
    throw new InvalidInputError(`${notificationPath} is not valid JSON: ${(error as Error).message}`);
  }
  const optional = (p: string) => (isDir && existsSync(join(full, p)) ? join(full, p) : undefined);
  const logsDir = optional("logs");
  const stixBundle = optional("intel/bundle.json");
  const expectedPath = optional("expected.json");
  return {
    name: isDir ? (full.split("/").at(-1) ?? "scenario") : "notification",
    notification,
    notificationPath,
    ...(logsDir ? { logsDir } : {}),
    ...(stixBundle ? { stixBundle } : {}),
    ...(expectedPath ? { expectedPath } : {}),
  };
}

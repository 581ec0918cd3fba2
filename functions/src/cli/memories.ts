import { Command, InvalidArgumentError, Option } from "commander";
import { createFirestore } from "../adapters/firestore/client.js";
import { FirestoreMemoryStore } from "../adapters/firestore/memory-store.js";
import { loadConfig } from "../config/config.js";
import { NotFoundError } from "../domain/errors.js";
import { choosePrimaryModel } from "../entry/primary-model.js";
import { embeddingSpace } from "../entry/tool-registry.js";
import { factText } from "../memory/fact.js";
import { LOG_ANALYST_SCOPE, type Memory, type MemoryMatch } from "../memory/memory.js";
import type { MemoryStore } from "../memory/store.js";
import { EMBEDDING_DIMENSIONS, type Model } from "../model/port.js";
import { createOfflineModel } from "../offline-model/index.js";
import { createLogger } from "../platform/logger.js";
import { OPERATOR_DATA_HELP, type OperatorDataOptions, openOperatorData } from "./project.js";
import { dataOptions } from "./report.js";

export interface MemoriesBackend {
  store: MemoryStore;
  /** Embeds search text the way recall does; only `search` needs it. */
  embedder: () => { model: Pick<Model, "embed">; space: string };
  minSimilarity: number;
  maxRecalled: number;
  /** Releases what opening it started (a run's emulators). */
  close?: () => Promise<void>;
}

export interface Printer {
  line(text: string): void;
}

const HELP_AFTER = `${OPERATOR_DATA_HELP}

search embeds the text the way the sub-agent's recall does (Gemini when configured,
otherwise the offline hashed-token embedding): use the same model settings as the
functions that stored the memories. It does not count as a use.`;

/** Reads the environment the way the functions do; nothing is contacted until a command runs. */
export async function backendFromEnv(
  options: OperatorDataOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<MemoriesBackend> {
  const config = loadConfig({ env });
  const data = await openOperatorData(env, options);
  const db = createFirestore({ projectId: data.projectId, databaseId: data.databaseId });
  return {
    store: new FirestoreMemoryStore(db),
    embedder: () => {
      const logger = createLogger({ minSeverity: "WARNING" });
      const model = choosePrimaryModel(config, env, createOfflineModel(), logger);
      return { model, space: embeddingSpace(config, model) };
    },
    minSimilarity: config.memory.minSimilarity,
    maxRecalled: config.memory.maxRecalled,
    close: async () => {
      await db.terminate();
      await data.stop();
    },
  };
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a positive whole number");
  return n;
}

function unitInterval(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0 || n > 1) {
    throw new InvalidArgumentError("expected a cosine similarity between 0 and 1");
  }
  return n;
}

/** `ferret memories …`; `backend` is resolved per command, so --help needs no configuration. */
export function memoriesCommand(
  open: (options: OperatorDataOptions) => MemoriesBackend | Promise<MemoriesBackend> = (options) =>
    backendFromEnv(options),
  printer: Printer = { line: (text) => process.stdout.write(`${text}\n`) },
): Command {
  const command = new Command("memories")
    .description("Inspect and curate the log-analysis sub-agent's memories (typed facts, scores, uses).")
    .addHelpText("after", HELP_AFTER);

  command
    .command("list")
    .description("Memories by score, highest first.")
    .option("--limit <n>", "how many", positiveInt, 50)
    .option("--json", "one JSON object per line, without the embedding", false)
    .action(async (opts: { limit: number; json: boolean } & DataFlags) =>
      using(opts, async (b) => {
        const memories = await b.store.list({ limit: opts.limit });
        if (!opts.json && memories.length === 0)
          printer.line("no memories yet: the log-analysis sub-agent adds facts after its sessions");
        for (const memory of memories) printer.line(opts.json ? toJson(memory) : summaryLine(memory));
      }),
    );

  command
    .command("search")
    .description(
      "Memories a sub-agent would recall for <text>: cosine similarity ≥ the threshold, nearest first.",
    )
    .argument("<text>", "a request as the sub-agent would receive it")
    .addOption(
      new Option(
        "--min-similarity <s>",
        "cosine similarity (not distance), 0..1; default memory.minSimilarity",
      ).argParser(unitInterval),
    )
    .option("--limit <n>", "at most this many; default memory.maxRecalled", positiveInt)
    .option("--scope <scope>", "whose memories", LOG_ANALYST_SCOPE)
    .option("--json", "one JSON object per line, without the embedding", false)
    .action(
      async (
        text: string,
        opts: { minSimilarity?: number; limit?: number; scope: string; json: boolean } & DataFlags,
      ) =>
        using(opts, async (b) => {
          const { model, space } = b.embedder();
          const [vector] = await model.embed({
            texts: [text],
            task: "RETRIEVAL_QUERY",
            dimensions: EMBEDDING_DIMENSIONS,
          });
          const matches = await b.store.search({
            scope: opts.scope,
            embeddingSpace: space,
            vector: vector ?? [],
            minSimilarity: opts.minSimilarity ?? b.minSimilarity,
            limit: opts.limit ?? b.maxRecalled,
          });
          if (!opts.json && matches.length === 0) printer.line("no memory is similar enough");
          for (const match of matches)
            printer.line(opts.json ? toJson(match.memory, match) : matchLine(match, space));
        }),
    );

  command
    .command("show")
    .description("One memory in full (the embedding as its length).")
    .argument("<id>", "a memory id, mem_…")
    .action(async (id: string, opts: DataFlags) =>
      using(opts, async (b) => {
        const memory = await b.store.get(id);
        if (!memory) throw new NotFoundError(`memory ${id} not found`);
        printer.line(JSON.stringify(withoutEmbedding(memory), null, 2));
      }),
    );

  command
    .command("delete")
    .description("Delete one memory, e.g. a wrong fact an operator spotted.")
    .argument("<id>", "a memory id, mem_…")
    .action(async (id: string, opts: DataFlags) =>
      using(opts, async (b) => {
        if (!(await b.store.delete(id))) throw new NotFoundError(`memory ${id} not found`);
        printer.line(`deleted ${id}`);
      }),
    );

  const where = "\nData: --run, FIRESTORE_EMULATOR_HOST or the deployment (see `ferret memories --help`).";
  for (const sub of command.commands)
    sub
      .option("--run <dir>", "a finished run's Firestore export (a directory under .ferret/runs, or latest)")
      .option(
        "--database <id>",
        "the Firestore database, against a deployment (default: Terraform's, ferret)",
      )
      .addHelpText("after", where);
  return command;

  async function using(flags: DataFlags, work: (b: MemoriesBackend) => Promise<void>): Promise<void> {
    const b = await open(dataOptions(flags));
    try {
      await work(b);
    } finally {
      await b.close?.();
    }
  }
}

interface DataFlags {
  run?: string;
  database?: string;
}

function withoutEmbedding(memory: Memory): Record<string, unknown> {
  const { embedding, ...rest } = memory;
  return { ...rest, embeddingDimensions: embedding.length };
}

function toJson(memory: Memory, match?: MemoryMatch): string {
  return JSON.stringify({ ...withoutEmbedding(memory), ...(match ? { similarity: match.similarity } : {}) });
}

function summaryLine(m: Memory): string {
  const score = m.score > 0 ? `+${m.score}` : String(m.score);
  const used = m.lastUsedAt ? `used ${m.useCount}× (last ${m.lastUsedAt})` : "never used";
  return `${m.id}  score ${score}  ${used}  [${m.scope}]  ${clip(factText(m.fact), 160)}`;
}

function matchLine(match: MemoryMatch, space: string): string {
  const foreign =
    match.memory.embeddingSpace === space ? "" : `  (embedded by ${match.memory.embeddingSpace})`;
  return `${match.similarity.toFixed(4)}  ${summaryLine(match.memory)}${foreign}`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

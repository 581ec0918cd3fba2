/**
 * The log analyst's internal tools. They are never registered with the main agent: only
 * the sub-agent sees them, so its trial and error stays out of the main agent's context.
 * The offline model imports these names to answer the `log_analyst` purpose.
 */
export const LOG_ANALYST_TOOLS = {
  listRunbooks: "list_runbooks",
  runRunbook: "run_runbook",
  listTables: "list_tables",
  describeTable: "describe_table",
  distinctValues: "distinct_values",
  runQuery: "run_query",
  nextPage: "next_page",
} as const;

export type LogAnalystToolName = (typeof LOG_ANALYST_TOOLS)[keyof typeof LOG_ANALYST_TOOLS];

/** The tools whose answers are rows from the warehouse (recorded as the session's queries). */
export const ROW_TOOLS: readonly string[] = [
  LOG_ANALYST_TOOLS.runRunbook,
  LOG_ANALYST_TOOLS.runQuery,
  LOG_ANALYST_TOOLS.distinctValues,
  LOG_ANALYST_TOOLS.nextPage,
];

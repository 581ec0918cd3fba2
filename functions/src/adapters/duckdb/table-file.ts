/**
 * A log file the local warehouse loads as a table, named by its stem. Apart from the
 * warehouse so that listing the tables (at start-up) does not load the DuckDB engine.
 */
export const TABLE_FILE = /^([A-Za-z][A-Za-z0-9_]*)\.jsonl$/;

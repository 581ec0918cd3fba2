/**
 * The bytes one investigation may scan in the log warehouse, across all its queries, on top
 * of the warehouse's per-query cap. Bound to one investigation by whoever runs the step.
 *
 * A query first reserves its worst case (`reserve`), which fails with BudgetExceededError
 * when the budget cannot cover it, so the query is refused before it runs; afterwards the
 * reservation is settled to what the warehouse reported (or released when it reported none).
 */
export interface ScanBudget {
  reserve(): Promise<ScanReservation>;
}

export interface ScanReservation {
  /** Bytes held for this query until it settles. */
  readonly heldBytes: number;
  /** The query ran: keep `bytes` (what it processed or was billed), give back the rest. */
  settle(bytes: number | undefined): Promise<void>;
}

import { BudgetExceededError } from "../domain/errors.js";
import type { Investigation } from "../domain/investigation.js";
import type { InvestigationStore } from "../ports/investigation-store.js";
import type { ScanBudget, ScanReservation } from "../tools/scan-budget.js";

export interface ScanBudgetOptions {
  /** Bytes the whole investigation may scan. */
  budgetBytes: number;
  /**
   * The most one query can scan: the warehouse's per-query cap (BigQuery maximumBytesBilled).
   * The port reports bytes only after a query ran, so this is what a query reserves.
   */
  worstCaseBytes: number;
}

const scanned = (inv: Investigation): number => inv.counters.bytesScanned ?? 0;

function withScanned(inv: Investigation, bytes: number): Investigation {
  return { ...inv, counters: { ...inv.counters, bytesScanned: Math.max(0, bytes) } };
}

/**
 * The investigation's scan budget, kept on its Firestore document: each reservation and
 * settlement is one transaction, so parallel steps (and the sub-agents inside them) cannot
 * together run past the budget. See docs/decisions/0020-budgets-that-stop-work.md.
 */
export function investigationScanBudget(
  store: Pick<InvestigationStore, "update">,
  investigationId: string,
  options: ScanBudgetOptions,
): ScanBudget {
  const hold = options.worstCaseBytes;
  return {
    async reserve(): Promise<ScanReservation> {
      // The change function may run more than once (transaction retries): the last run decides.
      let refusedAt: number | undefined;
      await store.update(investigationId, (current) => {
        const spent = scanned(current);
        refusedAt = spent + hold > options.budgetBytes ? spent : undefined;
        return refusedAt === undefined ? { investigation: withScanned(current, spent + hold) } : undefined;
      });
      if (refusedAt !== undefined)
        throw new BudgetExceededError(
          `query refused before it ran: this investigation has ${formatBytes(Math.max(0, options.budgetBytes - refusedAt))} of its ${formatBytes(options.budgetBytes)} scan budget left, ` +
            `and a query may scan up to ${formatBytes(hold)} (the per-query cap); conclude from what the earlier queries found`,
          { budgetBytes: options.budgetBytes, scannedBytes: refusedAt, worstCaseBytes: hold },
        );
      let settled = false;
      return {
        heldBytes: hold,
        async settle(bytes: number | undefined): Promise<void> {
          if (settled) return;
          settled = true;
          // A query that reported nothing (it failed, or the engine does not meter) keeps nothing.
          const kept = Math.max(0, bytes ?? 0);
          await store.update(investigationId, (current) => ({
            investigation: withScanned(current, scanned(current) - hold + kept),
          }));
        },
      };
    },
  };
}

function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

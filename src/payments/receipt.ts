/**
 * @module payments/receipt
 * Waits for a settlement's receipt by asking for it: at once, then after 2, 4, 8 ... ms, at most
 * RECEIPT_POLL_MAX_MS apart (a receipt ready after t ms is seen by about 2t). viem's waitForTransactionReceipt looks once, then joins a block-number
 * poller shared by every waiting settlement and looks again only when it sees a new block, half a
 * block time later for Base (1 s): in a 30-minute soak on anvil the first look missed more and more
 * often (the receipt wait's p50 0.7 ms in the first minute, 500 ms from the third; with a 100 ms
 * poller, 100 ms) and every paid route's p50 went from 20-100 ms to 600 ms. On Base itself a
 * receipt comes within a block (2 s): about 14 lookups per settlement.
 */
import type { Hash, TransactionReceipt } from "viem";

/** Unless the caller says: the gate counts a settlement unknown after its own 60 s (SETTLE_TIMEOUT_MS) anyway. */
export const RECEIPT_TIMEOUT_MS = 60_000;

/** The longest pause between two lookups. */
const RECEIPT_POLL_MAX_MS = 250;

export interface ReceiptReader {
  getTransactionReceipt(args: { hash: Hash }): Promise<TransactionReceipt>;
}

/** The receipt of `hash`, or an error once `timeoutMs` has passed without one (naming the last RPC error, if any). */
export async function waitForReceipt(reader: ReceiptReader, hash: Hash, timeoutMs: number): Promise<TransactionReceipt> {
  const deadline = performance.now() + timeoutMs;
  let lastError: Error | undefined;
  for (let pause = 2; ; pause = Math.min(pause * 2, RECEIPT_POLL_MAX_MS)) {
    try {
      return await reader.getTransactionReceipt({ hash });
    } catch (error) {
      // Not mined yet (TransactionReceiptNotFoundError) or a transient RPC failure: look again.
      lastError = error as Error;
    }
    if (performance.now() + pause > deadline) {
      throw new Error(`no receipt for transaction ${hash} within ${timeoutMs} ms (last lookup: ${lastError?.message.split("\n")[0] ?? "none"})`);
    }
    await Bun.sleep(pause);
  }
}

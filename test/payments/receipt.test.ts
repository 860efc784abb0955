/**
 * A settlement's receipt is looked up until it is there (payments/receipt.ts), on a real local
 * chain: a mined transaction's receipt comes back, and one that never mines ends in a clear error
 * at the time limit, not a hang.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { http, createWalletClient, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { waitForReceipt } from "../../src/payments/receipt.ts";
import { type LocalChain, PAYER_KEY, PAY_TO, startChain } from "../support/chain.ts";

let chain: LocalChain;
beforeAll(async () => {
  chain = await startChain();
});
afterAll(() => chain.stop());

test("the receipt of a sent transaction, looked up until it is mined", async () => {
  const wallet = createWalletClient({ account: privateKeyToAccount(PAYER_KEY), chain: baseSepolia, transport: http(chain.rpcUrl) }).extend(publicActions);
  const hash = await wallet.sendTransaction({ to: PAY_TO as `0x${string}`, value: 1n });
  const receipt = await waitForReceipt(wallet, hash, 10_000);
  expect(receipt.transactionHash).toBe(hash);
  expect(receipt.status).toBe("success");
});

test("a transaction that never mines ends in an error naming it at the time limit", async () => {
  const wallet = createWalletClient({ chain: baseSepolia, transport: http(chain.rpcUrl) }).extend(publicActions);
  const hash = `0x${"ab".repeat(32)}` as const;
  const error = await waitForReceipt(wallet, hash, 400).catch((e: Error) => e);
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message).toContain(`no receipt for transaction ${hash} within 400 ms`);
  expect((error as Error).message).toContain("could not be found");
});

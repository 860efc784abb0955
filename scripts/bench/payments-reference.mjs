/**
 * The reference for the payments benchmark: an Express server with @x402/express's
 * paymentMiddleware, the same price, network, pay-to and in-process facilitator as ckg's, one paid
 * and one free route. Plain JavaScript, so it runs on Node (Express's own runtime) and on Bun.
 * Prints its port as `{"msg":"listening","port":N}`.
 *   node scripts/bench/payments-reference.mjs <rpc url> <settlement key> <pay to>
 */
import { x402Facilitator } from "@x402/core/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import express from "express";
import { http, createWalletClient, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";

const [rpcUrl, key, payTo] = process.argv.slice(2);
const account = privateKeyToAccount(key);
const wallet = createWalletClient({ account, chain: baseSepolia, transport: http(rpcUrl) }).extend(publicActions);
const signer = toFacilitatorEvmSigner({ ...wallet, address: account.address });
const facilitator = registerExactEvmScheme(new x402Facilitator(), { signer, networks: "eip155:84532" });
const client = {
  verify: facilitator.verify.bind(facilitator),
  settle: facilitator.settle.bind(facilitator),
  getSupported: async () => facilitator.getSupported(),
};
const server = new x402ResourceServer(client).register("eip155:84532", new ExactEvmScheme());

const app = express();
app.use(paymentMiddleware({ "GET /api/changes": { accepts: { scheme: "exact", price: "$0.10", network: "eip155:84532", payTo }, description: "changes" } }, server));
app.get("/api/changes", (_req, res) => {
  res.json({ status: "success", changes: [], count: 0 });
});
app.get("/healthz", (_req, res) => {
  res.json({ status: "ok" });
});
const listener = app.listen(0, "127.0.0.1", () => {
  console.log(JSON.stringify({ msg: "listening", port: listener.address().port }));
});

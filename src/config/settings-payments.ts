/**
 * @module config/settings-payments
 * The payment settings of the table in settings.ts: where paid routes are paid (Base, Solana), who
 * settles (a remote facilitator, or the in-process one with its keys), prices, and repeat access
 * by signing in; where payments stand (paymentMode), and the rules between these settings, checked
 * with the configuration so a server never starts with payments it cannot settle.
 */
import { z } from "zod";
import { type Setting, type SettingRule, type SettingValues, setting } from "./setting.ts";

export const PAYMENT_SETTINGS = {
  pay_to: setting(
    "string",
    z.string().regex(/^0x[0-9a-fA-F]{40}$/, "an EVM address, 0x and 40 hex digits").optional(),
    undefined,
    "EVM address paid routes are paid to (USDC on Base); payments are off while neither it nor pay_to_solana is set",
  ),
  pay_to_solana: setting(
    "string",
    z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, "a Solana address (base58, 32 to 44 characters)").optional(),
    undefined,
    "Solana address paid routes are paid to (USDC on Solana), beside or instead of pay_to",
  ),
  solana_network: setting(
    "string",
    z.enum(["solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"]),
    "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    "Solana cluster payments to pay_to_solana are made on: solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp (mainnet) or solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1 (devnet)",
  ),
  network: setting(
    "string",
    z.enum(["eip155:8453", "eip155:84532"]),
    "eip155:8453",
    "chain payments are made on: eip155:8453 (Base) or eip155:84532 (Base Sepolia)",
  ),
  facilitator_url: setting("string", z.url().optional(), undefined, "remote x402 facilitator that verifies and settles payments"),
  facilitator_auth: setting(
    "string",
    z.string().min(1).optional(),
    undefined,
    "Authorization header value sent to the remote facilitator (e.g. 'Bearer <token>')",
    { secret: true },
  ),
  rpc_url: setting("string", z.url().optional(), undefined, "chain RPC of the in-process facilitator (settles payments itself; with a settlement key)"),
  settlement_key_file: setting("string", z.string().min(1).optional(), undefined, "file holding the private key of the wallet that settles payments (in-process facilitator)"),
  settlement_key: setting(
    "string",
    z.string().regex(/^(0x)?[0-9a-fA-F]{64}$/, "a 32-byte hex private key").optional(),
    undefined,
    "the settling wallet's private key itself (prefer settlement_key_file)",
    { secret: true },
  ),
  solana_rpc_url: setting("string", z.url().optional(), undefined, "Solana RPC of the in-process facilitator (settles Solana payments itself; with a Solana settlement key)"),
  solana_settlement_key_file: setting(
    "string",
    z.string().min(1).optional(),
    undefined,
    "file holding the keypair that pays Solana fees when settling (solana-keygen's JSON array of 64 bytes, or base58)",
  ),
  solana_settlement_key: setting(
    "string",
    z.string().min(1).optional(),
    undefined,
    "the Solana fee payer's keypair itself (base58 or a JSON array of 64 bytes; prefer solana_settlement_key_file)",
    { secret: true },
  ),
  siwx_access_seconds: setting(
    "integer",
    z.number().int().min(0).max(30 * 24 * 3600),
    0,
    "sign-in-with-x: for how long a wallet that paid for a resource may use it again by signing in (CAIP-122, SIWE/SIWS) instead of paying; 0 turns it off. Needs base_url: the signed domain and uri are checked against it",
  ),
  prices: setting(
    "string",
    z.string().regex(/^\s*([a-z_]+\s*=\s*\d+(\.\d+)?\s*)(,\s*[a-z_]+\s*=\s*\d+(\.\d+)?\s*)*$/, "operation=usd pairs, e.g. 'sparql=0.05,signals=0.10'").optional(),
    undefined,
    "price overrides in USD by operation name (sparql, search, explore, timeseries, changes, signals, entity_insights, insights_batch, subscribe)",
  ),
} as const satisfies Record<string, Setting>;

export const PAYMENT_MODES = ["off", "remote", "in-process"] as const;
export type PaymentMode = (typeof PAYMENT_MODES)[number];

/** What decides the mode. */
export type PaymentSettings = Partial<Pick<SettingValues<typeof PAYMENT_SETTINGS>, "pay_to" | "pay_to_solana" | "facilitator_url">>;

/** Where payments stand: off while no rail has a pay-to address; settled by the remote facilitator when one is set, else here. */
export function paymentMode(config: PaymentSettings): PaymentMode {
  if (!config.pay_to && !config.pay_to_solana) return "off";
  return config.facilitator_url ? "remote" : "in-process";
}

type PaymentValues = SettingValues<typeof PAYMENT_SETTINGS> & { base_url: string | undefined };

/** A rail settled in-process needs its RPC and the key that pays its fees. */
function settledHere(rail: { payTo: "pay_to" | "pay_to_solana"; rpc: "rpc_url" | "solana_rpc_url"; key: "settlement_key" | "solana_settlement_key"; chain: string }): SettingRule<PaymentValues> {
  const keyFile = `${rail.key}_file` as "settlement_key_file" | "solana_settlement_key_file";
  return {
    settings: [rail.payTo, "facilitator_url", rail.rpc, rail.key, keyFile],
    summary: `${rail.payTo} without facilitator_url (payments on ${rail.chain} settled in-process) needs ${rail.rpc} and ${keyFile} (or ${rail.key})`,
    check(values, describe) {
      if (!values[rail.payTo] || values.facilitator_url) return [];
      const missing = [...(values[rail.rpc] ? [] : [rail.rpc]), ...(values[rail.key] || values[keyFile] ? [] : [`${keyFile} (or ${rail.key})`])];
      if (missing.length === 0) return [];
      return [`${describe(rail.payTo)}: payments on ${rail.chain} settled in-process need ${rail.rpc} and ${keyFile} (or ${rail.key}); unset: ${missing.join(", ")}. Or set facilitator_url (a remote facilitator)`];
    },
  };
}

export const PAYMENT_RULES: readonly SettingRule<PaymentValues>[] = [
  settledHere({ payTo: "pay_to", rpc: "rpc_url", key: "settlement_key", chain: "Base" }),
  settledHere({ payTo: "pay_to_solana", rpc: "solana_rpc_url", key: "solana_settlement_key", chain: "Solana" }),
  {
    // The signed domain and URI are checked against the configured public URL, never a request's Host.
    settings: ["siwx_access_seconds", "base_url", "pay_to", "pay_to_solana"],
    summary: "siwx_access_seconds above 0 with payments on (pay_to or pay_to_solana set) needs base_url: the public URL signed-in messages are checked against",
    check: (values, describe) =>
      values.siwx_access_seconds > 0 && paymentMode(values) !== "off" && !values.base_url
        ? [`${describe("siwx_access_seconds")} needs base_url (unset): the public URL signed-in messages are checked against`]
        : [],
  },
];

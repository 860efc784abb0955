/**
 * @module ingest/providers/blockscout/schemas
 * Shapes of Blockscout's answers (API v2; only the fields read) and the keys answers are saved under.
 */
import { z } from "zod";
import { blockscoutProvider } from "../../../config/providers/blockscout.ts";

export const P = blockscoutProvider.id;

/** `token/<chain id>/<address>/<day>` and `holders/<chain id>/<address>/<day>`. */
export const tokenInfoKey = (chainId: number, address: string, day: string) => `token/${chainId}/${address}/${day}`;
export const holdersKey = (chainId: number, address: string, day: string) => `holders/${chainId}/${address}/${day}`;

export function parseHoldersKey(k: string): { chainId: number; address: string; day: string } | undefined {
  const m = /^holders\/(\d+)\/(0x[0-9a-f]{40})\/(\d{4}-\d{2}-\d{2})$/.exec(k);
  return m ? { chainId: Number(m[1]), address: m[2]!, day: m[3]! } : undefined;
}

const tag = z.object({ name: z.string().nullish(), slug: z.string().nullish(), tagType: z.string().nullish() });
const publicTag = z.object({ display_name: z.string().nullish(), label: z.string().nullish() });

export const addressSchema = z.object({
  hash: z.string().regex(/^0x[0-9a-fA-F]{40}$/, "not an address"),
  name: z.string().nullish(),
  is_contract: z.boolean().nullish(),
  // The metadata service's tags ({tags: [...]}); older answers give one tag object.
  metadata: z
    .union([z.object({ tags: z.array(tag) }), tag])
    .nullish()
    .transform((m): z.infer<typeof tag>[] => (!m ? [] : "tags" in m && Array.isArray(m.tags) ? m.tags : [m as z.infer<typeof tag>])),
  public_tags: z.array(publicTag).nullish(),
});
export type Address = z.infer<typeof addressSchema>;

export const holderSchema = z.object({ address: addressSchema, value: z.string().regex(/^\d+$/, "not an amount") });

export const tokenInfoSchema = z.object({
  total_supply: z.string().regex(/^\d+$/, "not an amount").nullable(),
  decimals: z.string().regex(/^\d+$/, "not a number").nullable(),
  name: z.string().nullish(),
  symbol: z.string().nullish(),
});

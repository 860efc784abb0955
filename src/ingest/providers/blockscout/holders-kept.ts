/**
 * @module ingest/providers/blockscout/holders-kept
 * Which holders count: exchange, bridge and burn addresses do not (see the connector), and how
 * each of them is told:
 *
 * - burn: the zero address and the conventional dead ones (0x00...01, 0x00...dEaD, 0xdead00...00),
 *   or an address tagged Burn or Null Address;
 * - the token's own contract (tokens sent back to it are gone);
 * - exchange: a Blockscout metadata tag or public tag saying Exchange, CEX, Hot Wallet, Cold
 *   Wallet or Deposit (the explorer's own labelling of custodial wallets, e.g. "Binance 14" comes
 *   with the generic tag "Exchange");
 * - bridge: a tag, or a contract name, saying Bridge, Gateway or Portal (Arbitrum's L1 gateways,
 *   OP Stack portals and standard bridges).
 *
 * An unlabelled wallet is kept: it may be a whale, and leaving it out would hide real concentration.
 */
import type { Address } from "./schemas.ts";

const BURN = /^0x(?:0{40}|0{39}1|0{36}dead|dead0{36})$/i;
const EXCHANGE = /\b(?:exchange|cex|hot[\s-]?wallet|cold[\s-]?wallet|deposit)\b/i;
const BRIDGE = /(?:bridge|gateway|portal)/i;
const BURN_TAG = /\b(?:burn|null address)\b/i;

/** Every name the explorer gives an address: its metadata tags, public tags and contract name. */
function namesOf(address: Address): string[] {
  return [
    ...address.metadata.flatMap((t) => [t.name, t.slug?.replace(/-/g, " ")]),
    ...(address.public_tags ?? []).flatMap((t) => [t.display_name, t.label]),
    address.name,
  ].filter((n): n is string => typeof n === "string" && n.trim() !== "");
}

/** Why a holder is left out, or undefined when it counts. */
export function exclusionOf(address: Address, token: string): string | undefined {
  const hash = address.hash.toLowerCase();
  const names = namesOf(address);
  if (BURN.test(hash) || names.some((n) => BURN_TAG.test(n))) return "burn address";
  if (hash === token.toLowerCase()) return "the token's own contract";
  if (names.some((n) => EXCHANGE.test(n))) return "exchange wallet (tagged by the explorer)";
  if (names.some((n) => BRIDGE.test(n))) return "bridge (tagged or named by the explorer)";
  return undefined;
}

/** What the explorer calls a holder: its name tag, else a public tag, else its contract name. */
export function labelOf(address: Address): string | undefined {
  const nameTag = address.metadata.find((t) => t.tagType === "name" && t.name)?.name;
  const publicTag = (address.public_tags ?? []).find((t) => t.display_name)?.display_name;
  return (nameTag ?? publicTag ?? address.name ?? undefined)?.trim() || undefined;
}

/**
 * @module ingest/resolve/keys
 * Keys as resolution compares them: token addresses on a resolved chain (canonical whichever key of
 * the chain a provider used), names within a type, and the namespace of a key.
 */
import type { NodeType } from "../../entities/vocabulary.ts";
import { normalizeName } from "../../entities/name-index.ts";
import { normalizeAddress } from "../records.ts";

/** Keys of chains a provider names by display name (DefiLlama). */
export const DISPLAY_NAME_CHAIN = "Chain:defillama:";
export const canonicalAddress = (chainId: string, address: string) => `Token:addr|${chainId}|${normalizeAddress(address)}`;
export const nameKey = (type: NodeType, name: string) => `${type}|${normalizeName(name)}`;
/** The namespace of a key (`Protocol:defillama`), to tell whether two clusters could be two records of one provider. */
export const namespaceOf = (k: string) => (k.startsWith("Token:addr|") ? "Token:addr" : k.split(":").slice(0, 2).join(":"));

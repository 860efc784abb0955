/**
 * @module ingest/records
 * What a provider's parser produces, before entity resolution: entity claims identified by keys,
 * and series rows whose id columns hold keys. The resolver turns keys into graph ids.
 *
 * A key names one thing in one provider's terms and carries its type, so a DefiLlama protocol and
 * the CoinGecko coin of its token (same `gecko_id`) never merge: `Protocol:defillama:uniswap`,
 * `Token:coingecko:uniswap`, `Chain:caip2:eip155:1`, `Organization:snapshot:uniswap.eth`.
 * A token deployment is an address key, `addressKey(chainKey, address)`: the chain part is any key
 * of the chain, made canonical once chains are resolved.
 */
import type { Attribute, ClassName, NodeType, Relation } from "../entities/vocabulary.ts";
import type { ProviderId } from "../config/providers/index.ts";
import type { Logger } from "../log.ts";
import type { Kind } from "../timeseries/kinds.ts";

export type { ProviderId } from "../config/providers/index.ts";

export function key(type: NodeType, namespace: string, value: string | number): string {
  return `${type}:${namespace}:${value}`;
}

/** Lower-cases 0x addresses (EVM); other chains' addresses are case-sensitive and kept. */
export function normalizeAddress(address: string): string {
  const trimmed = address.trim();
  return /^0x[0-9a-fA-F]+$/.test(trimmed) ? trimmed.toLowerCase() : trimmed;
}

const ADDRESS = "Token:address";

export function addressKey(chainKey: string, address: string): string {
  return `${ADDRESS}|${chainKey}|${normalizeAddress(address)}`;
}

export function parseAddressKey(k: string): { chainKey: string; address: string } | undefined {
  if (!k.startsWith(`${ADDRESS}|`)) return undefined;
  const last = k.lastIndexOf("|");
  return { chainKey: k.slice(ADDRESS.length + 1, last), address: k.slice(last + 1) };
}

export interface EntityClaim {
  type: NodeType;
  /** Identity keys; the first is the provider's own id for the record. At least one. */
  keys: string[];
  name: string;
  /** Subclasses beyond the type (Stablecoin, VentureFund, DAO, ...). */
  labels?: ClassName[];
  symbol?: string;
  aliases?: string[];
  attributes?: [Attribute, string | number | boolean][];
  /** Relations to other things, by any of their keys. */
  relations?: [Relation, string][];
  /** The record's pages at the provider (owl:sameAs). */
  sameAs?: string[];
  /** 0..1: how prominent (TVL, market cap rank); orders ambiguous name matches. */
  prominence?: number;
}

/** A series row: `entity_id` and the kind's other id columns (protocol_id, chain_id, ...) hold keys. */
export type SeriesRow = Record<string, string | number | boolean | null>;

/** The id columns of series rows that name graph entities (resolved from keys). */
export const SERIES_KEY_COLUMNS = ["entity_id", "protocol_id", "chain_id", "asset_id", "token_id", "exchange_id", "proposal_id", "schedule_id", "holder_id"] as const;

/** A fact about a thing another record (or provider) names: added only when both ends resolve. */
export interface Link {
  subject: string;
  relation: Relation;
  object: string;
}

export interface Rejection {
  provider: ProviderId;
  what: string;
  reason: string;
}

/**
 * A provider's homepage as a web address people can follow: an absolute http(s) URL with a host,
 * of sane length; a bare host name ("www.orderly.network", as some chain-list records give it) is
 * read as https. Anything else (javascript:, data:, text) is undefined.
 */
export function webUrl(value: string): string | undefined {
  const text = value.trim();
  if (text.length > 2048 || /\s/.test(text)) return undefined;
  const candidate = /^[a-z][a-z0-9+.-]*:/i.test(text) ? text : /^[a-z0-9-]+(\.[a-z0-9-]+)+(\/.*)?$/i.test(text) ? `https://${text}` : text;
  try {
    const url = new URL(candidate);
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname.includes(".") ? candidate : undefined;
  } catch {
    return undefined;
  }
}

/** Collects one provider's claims and series while its responses are parsed. */
export class ProviderOutput {
  readonly claims: EntityClaim[] = [];
  readonly links: Link[] = [];
  readonly series = new Map<Kind, SeriesRow[]>();
  readonly rejected: Rejection[] = [];
  /** Records left out on purpose (a test network), or kept without a link they could not make, by reason. */
  readonly leftOut = new Map<string, number>();
  /** The latest day any record speaks for (the provider's freshness). */
  latestDate: string | undefined;
  /**
   * Cursors of histories that are not one entity's rows (one answer holding every stablecoin's
   * prices), by cursor key: the last day each reached. Advanced with the rows' cursors, so an answer
   * that was refused or unreadable leaves its cursor where it was and its days are asked again.
   */
  readonly reached = new Map<string, string>();

  constructor(
    readonly provider: ProviderId,
    private readonly log: Logger,
  ) {}

  entity(claim: EntityClaim): void {
    if (claim.keys.length === 0 || !claim.name.trim()) {
      this.reject(`${claim.type} claim`, "no key or no name");
      return;
    }
    // A provider's URL becomes a link people follow: only a web address is kept.
    if (claim.attributes?.some(([attribute]) => attribute === "schema:url")) {
      const attributes: NonNullable<EntityClaim["attributes"]> = [];
      for (const [attribute, value] of claim.attributes) {
        if (attribute !== "schema:url") attributes.push([attribute, value]);
        else {
          const url = webUrl(String(value));
          if (url) attributes.push([attribute, url]);
          else this.leaveOut(`${claim.type} ${claim.name}: url ${JSON.stringify(String(value).slice(0, 80))}`, "url left out: not a web address");
        }
      }
      claim = { ...claim, attributes };
    }
    this.claims.push(claim);
  }

  link(subject: string, relation: Relation, object: string): void {
    this.links.push({ subject, relation, object });
  }

  row(kind: Kind, row: SeriesRow): void {
    let rows = this.series.get(kind);
    if (!rows) this.series.set(kind, (rows = []));
    rows.push(row);
    // Scheduled unlocks are future days: they say nothing of how fresh the data is.
    const date = row.date;
    if (kind !== "unlocks" && typeof date === "string" && (!this.latestDate || date > this.latestDate)) this.latestDate = date;
  }

  /** A history under `cursor` (not an entity's rows) reached `day`. */
  reach(cursor: string, day: string): void {
    const before = this.reached.get(cursor);
    if (!before || before < day) this.reached.set(cursor, day);
  }

  /** A malformed record: skipped, counted and logged (the first few of each provider in full). */
  reject(what: string, reason: string): void {
    this.rejected.push({ provider: this.provider, what, reason });
    if (this.rejected.length <= 20) this.log.warn({ provider: this.provider, what, reason }, "record rejected");
  }

  /**
   * A well-formed record left out or left unlinked on purpose (a test network; a chain that reuses
   * another's id, joined by name): counted by reason and logged, never silent.
   */
  leaveOut(what: string, reason: string): void {
    const n = (this.leftOut.get(reason) ?? 0) + 1;
    this.leftOut.set(reason, n);
    if (n <= 5) this.log.info({ provider: this.provider, what, reason }, "record left out");
  }

  get rowCount(): number {
    let n = 0;
    for (const rows of this.series.values()) n += rows.length;
    return n;
  }
}

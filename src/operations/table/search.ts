import { MIN_SIMILARITY, SCOPED_SEARCH_DEPTH, SEARCH_DEPTH, searchAnswerSchema, searchInputSchema } from "../../search/search.ts";
import { READS } from "../effects.ts";
import { defineOperation } from "../operation.ts";

export const search = defineOperation({
  name: "search",
  method: "POST",
  path: "/api/search",
  summary: "Find entities by name or by meaning",
  description:
    "Finds entities by exact name, symbol or known alias, former names included (case-, space- and punctuation-insensitive; " +
    "similarity 1.0, the canonical entity first), then by the words of names and aliases: every query word is a word, " +
    "a prefix or a close spelling of one ('arbitrum', 'arbitrm', 'coinbsae'; similarity 0.80-0.99), then, when the names " +
    "do not answer, by meaning ('decentralized exchange on solana', 'venture fund investing in DeFi'; similarity below " +
    "0.80: 0.8 x cosine, nudged by prominence). entity_types (Token, Protocol, Chain, Organization, Person, Exchange, " +
    "Pool) filters before the top-limit cut, so limit results come back whenever that many exist. " +
    `total_count counts the entities found: every name match, plus the meaning neighbours with similarity of at least ${MIN_SIMILARITY}, ` +
    `looking at most max(limit, ${SEARCH_DEPTH}) deep per entity type (${SCOPED_SEARCH_DEPTH} when the query names a chain after 'on': ` +
    "entities deployed there rank first), so it is a lower bound for broad queries. Use a result's name or uri with /api/explore.",
  priceUsd: 0.1,
  effects: READS,
  input: searchInputSchema,
  output: searchAnswerSchema,
  needs: ["snapshot"],
  example: { query: "decentralized exchange on solana", limit: 10, entity_types: ["Protocol"] },
  handler(input, { live }) {
    return live.search.search(input);
  },
});

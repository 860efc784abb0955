import { MIN_SIMILARITY, SCOPED_SEARCH_DEPTH, SEARCH_DEPTH, searchAnswerSchema, searchInputSchema } from "../../search/search.ts";
import { defineOperation } from "../operation.ts";

export const search = defineOperation({
  name: "search",
  method: "POST",
  path: "/api/search",
  summary: "Find entities by name or by meaning",
  description:
    "Finds entities by exact name, symbol or known alias (case- and space-insensitive; similarity 1.0, listed first), " +
    "then by close spelling (typos: 'uniswp') and by meaning ('decentralized exchange on solana', 'venture fund " +
    "investing in DeFi'), by decreasing similarity (0..1). entity_types (Token, Protocol, Chain, Organization, Person, " +
    "Exchange, Pool) filters before the top-limit cut, so limit results come back whenever that many exist. " +
    `total_count counts the entities found: the exact matches plus every other match with similarity of at least ${MIN_SIMILARITY}, ` +
    `looking at most ${SEARCH_DEPTH} deep per entity type (${SCOPED_SEARCH_DEPTH} when the query names a chain after 'on': ` +
    "entities deployed there rank first), so it is a lower bound for broad queries. Use a result's name or uri with /api/explore.",
  priceUsd: 0.1,
  input: searchInputSchema,
  output: searchAnswerSchema,
  needs: ["snapshot"],
  example: { query: "decentralized exchange on solana", limit: 10, entity_types: ["Protocol"] },
  handler(input, { services }) {
    return services.snapshot().search.search(input);
  },
});

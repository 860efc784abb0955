/**
 * @module ingest/providers/snapshot-org/hub
 * The Snapshot hub's GraphQL API: the queries, how far it pages, asking it (an answer without its
 * list is an error, not saved), and the list of a saved answer.
 */
import type { FetchContext } from "../../connector.ts";
import { answered, ask } from "../../connector.ts";
import { ProviderError } from "../../http.ts";
import type { RawStore } from "../../raw-store.ts";
import { P } from "./keys.ts";

export const SNAPSHOT_API = "https://hub.snapshot.org/graphql";
/** The hub's largest `first` for proposals; a shorter page is the last. */
const PROPOSAL_PAGE = 1000;
/** The hub refuses `skip` above 5000 (and `*_in` lists above 100 ids). */
const MAX_SKIP = 5000;

const SPACE_FIELDS = "id name about network symbol followersCount proposalsCount website";
const PROPOSAL_FIELDS = "id title type state start end created choices scores scores_total quorum votes space { id }";
/** The hub's largest `first` for votes. */
export const VOTE_PAGE = 1000;

export const SPACES_QUERY = `query Spaces($ids: [String], $first: Int!) {
  spaces(first: $first, skip: 0, where: { id_in: $ids }) { ${SPACE_FIELDS} }
}`;
export const RANKING_QUERY = `query Ranking($first: Int!, $skip: Int!) {
  ranking(first: $first, skip: $skip) { items { ${SPACE_FIELDS} } }
}`;
export const PROPOSALS_QUERY = `query Proposals($spaces: [String], $from: Int!, $first: Int!, $skip: Int!) {
  proposals(first: $first, skip: $skip, where: { space_in: $spaces, created_gte: $from }, orderBy: "created", orderDirection: asc) { ${PROPOSAL_FIELDS} }
}`;
export const OPEN_PROPOSALS_QUERY = `query OpenProposals($spaces: [String], $before: Int!, $endFrom: Int!, $first: Int!, $skip: Int!) {
  proposals(first: $first, skip: $skip, where: { space_in: $spaces, created_lt: $before, end_gte: $endFrom }, orderBy: "created", orderDirection: asc) { ${PROPOSAL_FIELDS} }
}`;

/** A proposal's votes from a time on, oldest first: paged by the time of the last vote read (`skip` stops at 5000). */
export const VOTES_QUERY = `query Votes($proposal: String!, $from: Int!, $first: Int!) {
  votes(first: $first, where: { proposal: $proposal, created_gte: $from }, orderBy: "created", orderDirection: asc) { voter vp choice created }
}`;

type Field = "spaces" | "proposals" | "ranking" | "votes";

/** `data.<field>` of a GraphQL answer as a list, else undefined. */
export function listOf(answer: unknown, field: Field): unknown[] | undefined {
  const data = (answer as { data?: Record<string, unknown> } | null)?.data;
  const value = field === "ranking" ? (data?.ranking as { items?: unknown } | null | undefined)?.items : data?.[field];
  return Array.isArray(value) ? value : undefined;
}

/** A GraphQL answer with `data.<field>`, else a refusal (not saved: a resumed run asks again). */
export async function graphql(ctx: FetchContext, api: string, query: string, variables: Record<string, unknown>, field: Field): Promise<unknown> {
  const answer = await ctx.http.postJson(api, { query, variables });
  if (listOf(answer, field)) return answer;
  const errors = (answer as { errors?: { message?: unknown }[] } | null)?.errors;
  const message = Array.isArray(errors) && typeof errors[0]?.message === "string" ? errors[0].message : `no data.${field} list in the answer`;
  throw new ProviderError(`snapshot: ${message}`, undefined, api);
}

/** The list of a saved answer ([] when it has none). */
export function savedList(raw: RawStore, k: string, field: Field): unknown[] {
  return listOf(raw.load(P, k), field) ?? [];
}

/** Pages a proposals query by `skip` until a short page (each page saved under `<prefix>/<skip>`). */
export async function fetchProposalPages(ctx: FetchContext, api: string, prefix: string, query: string, variables: Record<string, unknown>): Promise<void> {
  for (let skip = 0; skip <= MAX_SKIP; skip += PROPOSAL_PAGE) {
    const k = `${prefix}/${skip}`;
    // A refused page ends the query (the report says which): later pages would skip its proposals.
    if (!answered(await ask(ctx, P, k, () => graphql(ctx, api, query, { ...variables, first: PROPOSAL_PAGE, skip }, "proposals")))) return;
    if (savedList(ctx.raw, k, "proposals").length < PROPOSAL_PAGE) return;
  }
  ctx.log.warn({ prefix }, "more proposals than the hub pages through (skip > 5000); the rest are left out");
}

/**
 * @module ingest/providers/snapshot-org
 * DAOs and their off-chain governance from Snapshot (hub.snapshot.org/graphql): the spaces of the
 * known protocols (DefiLlama's `governanceID: ["snapshot:<space>"]`, the largest by TVL first), their
 * proposals with status and vote tallies, and a `governance` row per proposal.
 *
 * Which spaces: the DefiLlama protocols list saved in the same raw store (`defillama/protocols`), as
 * DefiLlama's parser reads it (defillama/known-protocols). Without it the hub's `ranking` (spaces by
 * popularity, which followers drive) stands in, the most followed first.
 *
 * Incremental, per space: the proposals created since the day after the space's last stored
 * governance day (`since(Organization:snapshot:<space>)`), or the last 180 days for a new space.
 * One query per space rather than one for all from the earliest day: spaces differ in how far
 * they are stored, and one space's long gap would otherwise re-download every other space's recent
 * proposals. A later run also asks again for the proposals created before that day that were still
 * open on it (`created_lt`, `end_gte`): their tallies moved and their result came in, which the
 * created-after query alone would never see.
 *
 * Votes (one record per voter) are read for the proposals of the run, the latest to close first, up
 * to `detailLimit` of them: they give the tally of each day a proposal was open (daily-tallies),
 * where the proposal's own `scores` only give its tally when read.
 * `turnout` needs a voting supply the hub does not give (scores are voting power under each
 * space's own strategies; `quorum` is a threshold in the same units). When the space votes with
 * the token of a protocol it governs (the space's symbol is that token's, the DefiLlama protocol's
 * `gecko_id` names it), turnout is scores_total over the token's circulating supply as CoinGecko's
 * markets answer of the same run says (capped at 1); otherwise it stays null.
 */
import { snapshotOrgProvider } from "../../../config/providers/snapshot-org.ts";
import { defineConnector } from "../../connector.ts";
import { fetchAll } from "./fetch.ts";
import { parseProposals } from "./parse-proposals.ts";
import { linkProtocols, parseSpaces } from "./parse-spaces.ts";

export const snapshotOrg = defineConnector(snapshotOrgProvider, {
  source: {
    name: "Snapshot (hub.snapshot.org)",
    license: "public API (Snapshot Labs); proposals are published by their spaces",
    attribution: "Off-chain governance (spaces, proposals, vote tallies) from the Snapshot hub (https://snapshot.org).",
    homepage: "https://snapshot.org",
  },
  configure: (settings) => ({ settings: { urls: { api: settings.snapshot_hub_url } }, minIntervalMs: 0 }),

  fetch: fetchAll,

  parse(raw, out) {
    const spaces = parseSpaces(raw, out);
    parseProposals(raw, out, spaces, linkProtocols(raw, out, spaces));
  },
});

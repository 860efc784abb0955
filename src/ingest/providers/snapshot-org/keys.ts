/**
 * @module ingest/providers/snapshot-org/keys
 * Keys of Snapshot's records, and a record's id as a rejection names it.
 */
import { snapshotOrgProvider } from "../../../config/providers/snapshot-org.ts";
import { key } from "../../records.ts";

export const P = snapshotOrgProvider.id;

export const spaceKey = (id: string) => key("Organization", "snapshot", id);
export const proposalKey = (id: string) => key("GovernanceProposal", "snapshot", id);

/** A record's id as a rejection names it ("uniswap.eth", or null). */
export const idOf = (item: unknown) => JSON.stringify((item as { id?: unknown } | null)?.id ?? null);

/**
 * @module demo/synthetic/history
 * A week of change history for the changes feed: recently created synthetic entities (with the
 * fields they were created with) and updates to existing ones (the fields that changed), spread
 * over the seven days before the world's as-of time. Reference entities are the baseline and have
 * no history. Later ingests append real differences to the same log.
 */
import { type NodeType, fieldName } from "../../entities/vocabulary.ts";
import type { GenContext } from "./context.ts";
import { isoSeconds } from "../../time.ts";

const UPDATED_FIELDS: Partial<Record<NodeType, string[][]>> = {
  Token: [["listedOn"], ["deployedOn", "contractAddress"], ["listedOn"], ["marketMakerFor"]],
  Protocol: [["deployedOn"], ["description"], ["integratesWith"], ["governanceToken"], ["category"]],
  Pool: [["poolToken"], ["feeTier"]],
  Organization: [["investedIn"], ["description"], ["treasuryHolds"]],
  Person: [["jobTitle"], ["worksAt"], ["contributesTo"]],
  Exchange: [["url"], ["country"]],
  GovernanceProposal: [["proposalStatus"]],
  FundingRound: [["amountUsd"], ["investor"]],
  Repository: [["contributesTo"]],
  LendingMarket: [["marketAsset"]],
};

const WEEK_MS = 7 * 86_400_000;

export function generateHistory(ctx: GenContext): void {
  const { world, rng, source } = ctx;
  const synthetic = [...world.entities.values()].filter((e) => e.source === source);
  const created = new Set(rng.sample(synthetic, Math.round(synthetic.length * 0.015)).map((e) => e.id));
  const fieldsOf = new Map<string, Set<string>>();
  for (const id of created) fieldsOf.set(id, new Set());
  const { subject, predicate } = world.facts;
  for (let i = 0; i < subject.length; i++) {
    const fields = fieldsOf.get(subject[i]!);
    if (fields && predicate[i] !== "rdf:type") fields.add(fieldName(predicate[i]!));
  }
  const end = ctx.asOf.getTime();
  const at = () => isoSeconds(new Date(end - Math.floor(rng.next() * WEEK_MS)));

  for (const id of created) {
    world.change({ ts: at(), id, operation: "CREATE", fields: [...fieldsOf.get(id)!].sort(), source });
  }
  for (const entity of rng.sample(synthetic, Math.round(synthetic.length * 0.03))) {
    const options = UPDATED_FIELDS[entity.type];
    if (!options || created.has(entity.id)) continue;
    world.change({ ts: at(), id: entity.id, operation: "UPDATE", fields: rng.pick(options), source });
  }
  world.changes.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : a.id.localeCompare(b.id)));
}

/**
 * @module ingest/providers/snapshot-org/schemas
 * Shapes of the hub's records (spaces, proposals) and of the run note fetch leaves for parse.
 */
import { z } from "zod";

export const spaceSchema = z.object({
  id: z.string().min(1),
  name: z.string().nullish(),
  about: z.string().nullish(),
  network: z.string().nullish(),
  symbol: z.string().nullish(),
  followersCount: z.number().nullish(),
  proposalsCount: z.number().nullish(),
  website: z.string().nullish(),
});
export type Space = z.infer<typeof spaceSchema>;

export const proposalSchema = z.object({
  id: z.string().min(1),
  title: z.string(),
  /** single-choice, basic, approval, ranked-choice, weighted, quadratic (how a vote's choice reads). */
  type: z.string().nullish(),
  state: z.enum(["pending", "active", "closed"]),
  start: z.number().int(),
  end: z.number().int(),
  created: z.number().int(),
  choices: z.array(z.string().nullable()),
  scores: z.array(z.number().nullable()).nullish(),
  scores_total: z.number().nullish(),
  quorum: z.number().nullish(),
  votes: z.number().nullish(),
  space: z.object({ id: z.string().min(1) }),
});
export type Proposal = z.infer<typeof proposalSchema>;

/** A vote: its voting power, and the choice in its proposal type's form (an index, a list of indexes, or weights by index). */
export const voteSchema = z.object({
  voter: z.string().min(1),
  vp: z.number().nonnegative(),
  created: z.number().int(),
  choice: z.union([z.number(), z.array(z.number()), z.record(z.string(), z.number())]),
});
export type Vote = z.infer<typeof voteSchema>;

export const runSchema = z.object({ today: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) });

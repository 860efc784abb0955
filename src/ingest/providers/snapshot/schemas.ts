/**
 * @module ingest/providers/snapshot/schemas
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

export const runSchema = z.object({ today: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) });

/**
 * @module operations/table
 * The operations table: every capability of the service, listed explicitly (no discovery by
 * glob), so the bundler, the router, OpenAPI and the MCP server all see the same set.
 */
import type { AnyOperation } from "../operation.ts";
import { changes } from "./changes.ts";
import { explore } from "./explore.ts";
import { schema } from "./schema.ts";
import { search } from "./search.ts";
import { entityInsights, insightsBatch, signalsByType, signalsCatalog, signalsOverview } from "./signals.ts";
import { sparql } from "./sparql.ts";
import { rotateSubscriptionSecret, subscribe, subscription, unsubscribe } from "./subscriptions.ts";
import { timeseries } from "./timeseries.ts";

export const OPERATIONS = [
  sparql,
  search,
  explore,
  timeseries,
  changes,
  entityInsights,
  signalsByType,
  insightsBatch,
  schema,
  signalsCatalog,
  signalsOverview,
  subscribe,
  subscription,
  rotateSubscriptionSecret,
  unsubscribe,
] as const satisfies readonly AnyOperation[];

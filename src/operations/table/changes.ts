import { CkgError } from "../../errors.ts";
import { changeQuerySchema, changesAnswerSchema, queryChanges } from "../../graph/change-log.ts";
import { READS } from "../effects.ts";
import { defineOperation } from "../operation.ts";

export const changes = defineOperation({
  name: "changes",
  method: "GET",
  path: "/api/changes",
  summary: "Recent creates and updates of graph entities",
  description:
    "Lists changes to the graph, newest first: which entity, CREATE or UPDATE, the fields that changed, when, and the " +
    "source. since_hours sets the look-back window (default 72, up to 8760); limit the page size (default 100, 1..1000). " +
    "Filter by entity_uri or operation. summary=true returns counts by operation and entity type instead of changes. " +
    "When more changes exist, next_cursor is set: pass it as cursor to read the next page.",
  priceUsd: 0.1,
  effects: READS,
  input: changeQuerySchema,
  output: changesAnswerSchema,
  needs: ["snapshot"],
  example: { since_hours: 72, limit: 20 },
  prepare(input, { live }) {
    if (input.entity_uri && !live.names.byUri(input.entity_uri)) {
      throw new CkgError("entity_not_found", `No entity has the URI ${input.entity_uri}.`, {
        details: { entity_uri: input.entity_uri, expected_pattern: live.schema.entity_uri_pattern },
      });
    }
    return input;
  },
  async handler(input, { services }) {
    return queryChanges(services.state, input);
  },
});

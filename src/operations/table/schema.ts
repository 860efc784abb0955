import { z } from "zod";
import { schemaDocumentSchema } from "../../snapshot/describe.ts";
import { READS } from "../effects.ts";
import { defineOperation } from "../operation.ts";

export const schema = defineOperation({
  name: "schema",
  method: "GET",
  path: "/api/schema",
  summary: "Ontology classes and predicates, time-series tables, and data provenance (free)",
  description:
    "Free. Lists every class and predicate of the ontology (labels, comments, domains, ranges, explore focus category), " +
    "every time-series (ts_*) table with its columns, row count and date range, and the provenance of the live " +
    "snapshot: its sources, which of them are synthetic demo data, when it was built, and entity counts by type. " +
    "Read this first to write SPARQL or SQL.",
  priceUsd: 0,
  effects: READS,
  input: z.strictObject({}),
  output: schemaDocumentSchema,
  needs: ["snapshot"],
  example: {},
  handler(_input, { live }) {
    return live.schema;
  },
});

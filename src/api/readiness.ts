/**
 * @module api/readiness
 * /healthz and /readyz in /openapi.json, from their schemas (operations/readiness.ts).
 */
import type { z } from "zod";
import { toJsonSchema } from "../operations/json-schema.ts";
import { healthSchema, readinessSchema } from "../operations/readiness.ts";
import type { OpenApiEntry } from "./routes.ts";

const json = (schema: z.ZodType) => ({ "application/json": { schema: toJsonSchema(schema, "output") } });

export const healthEntry: OpenApiEntry = {
  operationId: "health",
  summary: "Liveness",
  description: "Answers while the process runs, whatever state its data is in (readiness: /readyz).",
  responses: { "200": { description: "The process runs.", content: json(healthSchema) } },
};

export const readinessEntry: OpenApiEntry = {
  operationId: "readiness",
  summary: "Readiness, data provenance and the server's state",
  description:
    "Whether the server answers queries, and why not: its phase, the live snapshot and its sources (which of them are " +
    "synthetic demo data), the graph, the signal scans and ingests, and payments. Not ready is 503 with the same body.",
  responses: {
    "200": { description: "Ready.", content: json(readinessSchema) },
    "503": { description: "Not ready (yet): the body says why.", content: json(readinessSchema) },
  },
};

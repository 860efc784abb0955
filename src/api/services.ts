/**
 * @module api/services
 * What the HTTP API reads of the running server beyond what operations use: its phase and age
 * (health, readiness, metrics). server/services.ts implements it.
 */
import type { OperationServices } from "../operations/context.ts";
import type { Phase, ServerReadiness } from "./readiness.ts";

export interface ApiServices extends OperationServices {
  readonly phase: Phase;
  readonly startedAt: number;
  /** /readyz: ready or not, and a body saying why (phase, snapshot, graph, scans). */
  readiness(): Promise<{ ready: boolean; body: ServerReadiness }>;
}

/** The W3C SPARQL 1.1 Protocol tests of a read-only endpoint (test/support/sparql-protocol-conformance.ts) on the embedded store. */
import { afterAll, beforeAll } from "bun:test";
import { type Running, startServices } from "../support/fixture.ts";
import { describeProtocolConformance } from "../support/sparql-protocol-conformance.ts";

let run: Running;
beforeAll(async () => {
  run = await startServices();
});
afterAll(() => run.close());

describeProtocolConformance("the embedded store", () => run);

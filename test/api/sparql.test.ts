import { afterAll, beforeAll } from "bun:test";
import { type Running, startServices } from "../support/fixture.ts";
import { describeSparqlConformance } from "../support/sparql-conformance.ts";

let run: Running;
beforeAll(async () => {
  run = await startServices();
});
afterAll(() => run.close());

describeSparqlConformance("the embedded store", () => run);

/**
 * One request, one snapshot (operations/context.ts): what an operation's prepare found and what its
 * handler reads come from the snapshot that was live when the request began, even when the server
 * switches to a newer snapshot in between.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { silentLogger } from "../../src/log.ts";
import { operationContext } from "../../src/operations/context.ts";
import { invoke } from "../../src/operations/invoke.ts";
import { explore } from "../../src/operations/table/explore.ts";
import { createPayments } from "../../src/supervisor/assemble.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { FIXTURE_SCALE, type Running, startServices } from "../support/fixture.ts";
import { until } from "../support/until.ts";

let run: Running;
beforeAll(async () => {
  run = await startServices({ snapshot_poll_ms: 100 });
});
afterAll(() => run.close());

test("a snapshot switch during a request does not reach it", async () => {
  const { services } = run;
  const ctx = operationContext(services, "pinned");
  const before = ctx.live;
  // Published beside the live one; the server switches to it as it would to an ingest's.
  const next = await buildSnapshot({ dir: services.dir, scale: FIXTURE_SCALE, seed: 8, ontologyNs: "https://ckg.example/ontology#", log: silentLogger });
  await until(`the switch to ${next.id}`, 60_000, () => services.snapshot().id === next.id);
  expect(ctx.live).toBe(before);
  expect(ctx.live.id).not.toBe(next.id);

  // The whole invoke path on that context: prepare and handler both read the pinned snapshot.
  const { payments } = createPayments(services, [explore]);
  const outcome = await invoke(explore, { entity_name: "Ethereum", focus: ["lineage"] }, ctx, payments, { resourceUrl: "http://127.0.0.1/api/explore" });
  expect(outcome.type).toBe("answered");
  const answer = outcome.type === "answered" ? outcome.answer : undefined;
  expect((answer as { entity: { uri: string } }).entity.uri).toBe(before.names.exactAny("Ethereum", () => true)[0]!.uri);
  // A new request sees the new snapshot.
  expect(operationContext(services, "next").live.id).toBe(next.id);
});

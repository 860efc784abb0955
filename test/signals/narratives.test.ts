/**
 * Narratives from an OpenAI-compatible chat endpoint (a local fake: the third party we cannot
 * reach), with the offline writer as the fallback on any failure; and the offline writer's
 * determinism, through real scans.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { silentLogger } from "../../src/log.ts";
import { type Brief, ChatNarrator, OfflineNarrator, narratorFor } from "../../src/signals/narratives.ts";
import { SYNTHETIC_MARK } from "../../src/signals/synthetic.ts";
import type { StateStore } from "../../src/store/state.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { scan, snapshotOf } from "./support.ts";

let mode: "ok" | "error" | "slow" = "ok";
/** A slow answer is held until the test lets it go: the writer's time limit always passes first. */
let releaseSlow = () => {};
const requests: { model: string; messages: { role: string; content: string }[]; auth: string | null }[] = [];
const server = Bun.serve({
  port: 0,
  async fetch(request) {
    if (new URL(request.url).pathname !== "/v1/chat/completions") return new Response("not found", { status: 404 });
    const body = (await request.json()) as { model: string; messages: { role: string; content: string }[] };
    requests.push({ ...body, auth: request.headers.get("authorization") });
    if (mode === "error") return new Response("overloaded", { status: 503 });
    if (mode === "slow") await new Promise<void>((resolve) => (releaseSlow = resolve));
    const facts = JSON.parse(body.messages[1]!.content) as { subject: string; actionability: string };
    return Response.json({ choices: [{ message: { role: "assistant", content: `Briefing on ${facts.subject}\nModel text: ${facts.actionability}.` } }] });
  },
});
const url = `http://127.0.0.1:${server.port}/v1`;

const brief: Brief = {
  scope: "entity",
  subject: "Zorvex Lend",
  actionability: "watchlist",
  signals: [
    { signalId: "sig_a", type: "utilization-stress", category: "DeFi Risk & Opportunity", severity: "high", score: 80, summary: "Zorvex Lend USDC: 97.5% of 10M USD supplied is borrowed." },
    { signalId: "sig_b", type: "earnings-health", category: "Protocol Fundamentals", severity: "moderate", score: 60, summary: "Zorvex Lend lost 70K USD a day." },
  ],
};

afterAll(() => server.stop(true));

describe("narrative writers", () => {
  test("the offline writer is deterministic and carries the numbers", async () => {
    const a = await new OfflineNarrator().write(brief);
    const b = await new OfflineNarrator().write(brief);
    expect(a).toEqual(b);
    expect(a.writer).toBe("offline");
    expect(a.text).toContain("97.5%");
    expect(a.text).toContain("70K USD");
    expect(a.title).toContain("Watchlist");
  });

  test("a configured endpoint writes the text; the key goes as a bearer token", async () => {
    mode = "ok";
    const written = await new ChatNarrator(url, "tiny-model", "sk-test", 5000, 10, silentLogger).write(brief);
    expect(written).toMatchObject({ title: "Briefing on Zorvex Lend", text: "Model text: watchlist.", writer: "llm:tiny-model" });
    const sent = requests.at(-1)!;
    expect(sent.model).toBe("tiny-model");
    expect(sent.auth).toBe("Bearer sk-test");
    expect(sent.messages[1]!.content).toContain("97.5%");
  });

  test("an endpoint error or time-out falls back to the offline writer and says why", async () => {
    mode = "error";
    const failed = await new ChatNarrator(url, "tiny-model", undefined, 5000, 10, silentLogger).write(brief);
    expect(failed.writer).toBe("offline");
    expect(failed.writer_error).toContain("503");
    expect(failed.text).toBe((await new OfflineNarrator().write(brief)).text);
    mode = "slow";
    const slow = await new ChatNarrator(url, "tiny-model", undefined, 200, 10, silentLogger).write(brief);
    releaseSlow();
    expect(slow.writer).toBe("offline");
    expect(slow.writer_error).toContain("200 ms");
    const unreachable = await new ChatNarrator("http://127.0.0.1:9/v1", "m", undefined, 2000, 10, silentLogger).write(brief);
    expect(unreachable.writer).toBe("offline");
  });
});

describe("narratives in a scan", () => {
  let root: string;
  let state: StateStore;
  beforeAll(async () => {
    root = await copyOfFixture();
    state = openSqliteState(snapshotOf(root).dir.stateDb);
  });
  afterAll(async () => {
    await state.close();
    rmSync(root, { recursive: true, force: true });
  });

  test("a scan with the endpoint configured stores the endpoint's narratives, linked to their signals", async () => {
    mode = "ok";
    const narrator = narratorFor({ url, model: "tiny-model", timeoutMs: 5000, maxCalls: 1000 }, silentLogger);
    await scan(root, state, snapshotOf(root).manifest.as_of.slice(0, 10), { narrator });
    const rows = await state.all<{ evidence: string; severity: string }>("SELECT evidence, severity FROM signals WHERE signal_type = 'narrative-synthesis'");
    expect(rows.length).toBeGreaterThan(0);
    const severity = { urgent: "high", watchlist: "moderate", informational: "low" } as Record<string, string>;
    for (const row of rows) {
      const evidence = JSON.parse(row.evidence);
      expect(evidence.writer).toBe("llm:tiny-model");
      expect(evidence.title).toStartWith("Briefing on ");
      // The endpoint wrote the words; the scan adds that they rest on demo data, once, at the end.
      expect(evidence.text).toBe(`Model text: ${evidence.actionability}. ${SYNTHETIC_MARK}`);
      expect(evidence.summary).toBe(`${evidence.title} ${SYNTHETIC_MARK}`);
      expect(row.severity).toBe(severity[evidence.actionability]!);
      expect(evidence.linked_signals.length).toBeGreaterThanOrEqual(2);
      for (const link of evidence.linked_signals) {
        expect(await state.get("SELECT 1 AS one FROM signals WHERE signal_id = ?", [link.signal_id])).not.toBeNull();
      }
    }
  });
});

/**
 * Narratives from an OpenAI-compatible chat endpoint (a local fake on 127.0.0.1: the third party we
 * cannot reach) and the limits around it (signals/narrator.ts): an endpoint that accepts and never
 * answers, one that answers 500, one that invents a figure, one that answers faithfully; the circuit
 * breaker, the scan's budget, and the template standing with its reason. Through the narrator, then
 * through real scans. Assertions are on behaviour and order (which calls were made, which narrative
 * says what), never on wall time.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { silentLogger } from "../../src/log.ts";
import { describeOperation } from "../../src/operations/operation.ts";
import { entityInsights } from "../../src/operations/table/signals.ts";
import narrativeSynthesis from "../../src/signals/detectors/narrative-synthesis.ts";
import { evidenceJsonSchema } from "../../src/signals/evidence.ts";
import { type Brief, type LinkedSignal, OfflineNarrator, offline } from "../../src/signals/narratives.ts";
import { BREAKER_FAILURES, ChatNarrator, narratorFor } from "../../src/signals/narrator.ts";
import { SYNTHETIC_MARK } from "../../src/signals/synthetic.ts";
import type { StateStore } from "../../src/store/state.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { scan, snapshotOf } from "./support.ts";

type Facts = { subject: string; actionability: string; draft: string };
/** What the "reply" endpoint answers (the whole message: a title line, then the text); set per test. */
let reply: (facts: Facts) => string = (facts) => `Briefing on ${facts.subject}\nNo figures here.`;
const requests: { mode: string; subject: string; model: string; auth: string | null; content: string }[] = [];
/** Answers held open by the hanging modes, let go when the file ends. */
const held: (() => void)[] = [];

// The path's first segment picks the endpoint's behaviour: http://127.0.0.1:<port>/<mode>/v1.
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const [, mode, ...rest] = new URL(request.url).pathname.split("/");
    if (rest.join("/") !== "v1/chat/completions") return new Response("not found", { status: 404 });
    const body = (await request.json()) as { model: string; messages: { role: string; content: string }[] };
    const facts = JSON.parse(body.messages[1]!.content) as Facts;
    requests.push({ mode: mode!, subject: facts.subject, model: body.model, auth: request.headers.get("authorization"), content: body.messages[1]!.content });
    const answer = (content: string) => Response.json({ choices: [{ message: { role: "assistant", content } }] });
    switch (mode) {
      case "hang":
        return new Promise<Response>((resolve) => held.push(() => resolve(new Response("late"))));
      case "headers-then-hang": // the status and headers come, the body never ends
        return new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('{"choices": ['));
              held.push(() => {
                try {
                  controller.close();
                } catch {
                  // closed already: the client gave up and the stream was cancelled
                }
              });
            },
          }),
          { headers: { "content-type": "application/json" } },
        );
      case "error":
        return new Response("upstream exploded", { status: 500 });
      case "flaky": // fails for subjects that say so, answers the others
        return facts.subject.startsWith("Down") ? new Response("busy", { status: 500 }) : answer(reply(facts));
      case "reply":
        return answer(reply(facts));
      default:
        return new Response("unknown mode", { status: 404 });
    }
  },
});
const endpoint = (mode: string) => `http://127.0.0.1:${server.port}/${mode}/v1`;
const requestsOf = (mode: string) => requests.filter((r) => r.mode === mode).map((r) => r.subject);

afterAll(() => {
  for (const release of held) release();
  server.stop(true);
});

const signals: LinkedSignal[] = [
  {
    signalId: "sig_a",
    type: "utilization-stress",
    category: "DeFi Risk & Opportunity",
    severity: "high",
    score: 80,
    summary: "Zorvex Lend USDC: 97.5% of 10.23M USD supplied is borrowed (at or above 85% on 6 of the last 7 days).",
    evidence: {
      metric: "utilization_pct",
      value: 97.53,
      window: { from: "2026-11-22", to: "2026-11-28" },
      data_points: [{ table: "ts_synthetic_lending", entity: "pool/zorvex-usdc", date: "2026-11-28", column: "totalSupplyUsd", value: 10_234_567.8 }],
    },
  },
  {
    signalId: "sig_b",
    type: "earnings-health",
    category: "Protocol Fundamentals",
    severity: "moderate",
    score: 60,
    summary: "Zorvex Lend lost 70.0K USD a day over the last 30 days (52.1K USD a day the 30 days before: worsening).",
    evidence: { metric: "daily_loss_usd", value: 70_012.5, window: { from: "2026-10-30", to: "2026-11-28" } },
  },
];
const brief = (subject = "Zorvex Lend"): Brief => ({ scope: "cross-domain", subject, actionability: "watchlist", asOf: "2026-11-28", signals });
const briefs = (...subjects: string[]) => subjects.map(brief);
const chat = (mode: string, limits: { timeoutMs?: number; budgetMs?: number; apiKey?: string } = {}) =>
  new ChatNarrator({ url: endpoint(mode), model: "tiny-model", timeoutMs: limits.timeoutMs ?? 5000, budgetMs: limits.budgetMs ?? 60_000, apiKey: limits.apiKey }, silentLogger);

describe("the template", () => {
  test("is deterministic and carries the numbers", async () => {
    const [a] = await new OfflineNarrator().writeAll([brief()]);
    const [b] = await new OfflineNarrator().writeAll([brief()]);
    expect(a).toEqual(b!);
    expect(a!.writer).toBe("offline");
    expect(a!.text).toContain("97.5%");
    expect(a!.text).toContain("70.0K USD");
    expect(a!.title).toContain("Watchlist");
  });
});

describe("an endpoint's narratives", () => {
  test("a faithful answer is kept: its figures, however written, are in the linked signals' evidence", async () => {
    reply = (facts) =>
      `Watchlist: ${facts.subject} borrowing near the ceiling\n` +
      `As of November 28, 2026, about 98% of the $10.2 million supplied to ${facts.subject}'s USDC market is borrowed, above 85% on 6 of the ` +
      "last 7 days, while the protocol loses $70,000 a day against 52.1K USD before. 2 signals, score 80 and 60.";
    const [written] = await chat("reply", { apiKey: "sk-test" }).writeAll([brief()]);
    expect(written).toEqual({ title: "Watchlist: Zorvex Lend borrowing near the ceiling", text: expect.stringContaining("$10.2 million"), writer: "llm:tiny-model" });
    const sent = requests.at(-1)!;
    expect(sent).toMatchObject({ model: "tiny-model", auth: "Bearer sk-test" });
    expect(sent.content).toContain("97.5%");
    // The evidence backs the check; the prompt carries the summaries only.
    expect(sent.content).not.toContain("10234567.8");
  });

  test("an answer with an invented figure is kept out: the template stands and the figure is named; the next answer is judged on its own", async () => {
    reply = (facts) =>
      facts.subject === "Zorvex Lend"
        ? `Zorvex Lend under stress\n97.5% of its USDC is borrowed and 12% of its supply unlocks next week, worth $4.1M.`
        : `Briefing on ${facts.subject}\nUtilization is 97.5% of 10.23M USD supplied.`;
    const written = await chat("reply").writeAll(briefs("Zorvex Lend", "Zorvex Markets"));
    expect(written[0]).toMatchObject({ ...offline(brief()), writer: "offline", fallback: "unbacked_figures", unbacked_figures: ["12%", "4.1M"] });
    expect(written[0]!.writer_error).toBe(`the endpoint's text states "12%", "4.1M", which the linked signals' evidence does not hold; the template stands`);
    expect(written[1]).toMatchObject({ title: "Briefing on Zorvex Markets", writer: "llm:tiny-model" });
    expect(written[1]!.fallback).toBeUndefined();
  });

  test(`an endpoint that accepts and never answers: ${BREAKER_FAILURES} time-outs in a row open the breaker; the rest of the scan is the template, saying why`, async () => {
    const subjects = ["A", "B", "C", "D", "E", "F"];
    const written = await chat("hang", { timeoutMs: 200 }).writeAll(briefs(...subjects));
    expect(requestsOf("hang")).toEqual(["A", "B", "C"]);
    expect(written.map((w) => w.fallback)).toEqual(["endpoint_timed_out", "endpoint_timed_out", "endpoint_timed_out", "breaker_open", "breaker_open", "breaker_open"]);
    expect(written[0]!.writer_error).toBe("no answer within 200 ms");
    expect(written[3]!.writer_error).toBe("the endpoint failed 3 times in a row (the last: no answer within 200 ms); the rest of this scan uses the template");
    written.forEach((w, i) => expect(w).toMatchObject({ ...offline(brief(subjects[i])), writer: "offline" }));
  });

  test("the breaker is per scan: the next scan calls the endpoint again", async () => {
    const narrator = chat("hang", { timeoutMs: 100 });
    const before = requestsOf("hang").length;
    await narrator.writeAll(briefs("G", "H", "I", "J"));
    await narrator.writeAll(briefs("K", "L", "M", "N"));
    expect(requestsOf("hang").slice(before)).toEqual(["G", "H", "I", "K", "L", "M"]);
  });

  test("an answer whose body never ends times out the same way", async () => {
    const [written] = await chat("headers-then-hang", { timeoutMs: 200 }).writeAll([brief()]);
    expect(written).toMatchObject({ writer: "offline", fallback: "endpoint_timed_out", writer_error: "no answer within 200 ms" });
  });

  test("an endpoint answering 500 opens the breaker the same way", async () => {
    const written = await chat("error").writeAll(briefs("A", "B", "C", "D", "E"));
    expect(requestsOf("error")).toEqual(["A", "B", "C"]);
    expect(written.map((w) => w.fallback)).toEqual(["endpoint_failed", "endpoint_failed", "endpoint_failed", "breaker_open", "breaker_open"]);
    expect(written[0]!.writer_error).toBe("the endpoint answered 500");
    expect(written[4]!.writer_error).toContain("(the last: the endpoint answered 500)");
  });

  test("failures that are not in a row leave the breaker closed", async () => {
    reply = (facts) => `Briefing on ${facts.subject}\nNo figures here.`;
    const subjects = ["Down 1", "Down 2", "Up 1", "Down 3", "Down 4", "Up 2"];
    const written = await chat("flaky").writeAll(briefs(...subjects));
    expect(requestsOf("flaky")).toEqual(subjects);
    expect(written.map((w) => w.writer)).toEqual(["offline", "offline", "llm:tiny-model", "offline", "offline", "llm:tiny-model"]);
  });

  test("once the scan's budget is spent no call is made: the call it cut and every later narrative say so", async () => {
    // A time limit longer than the budget: the budget alone ends the first call, whatever the machine's speed.
    const written = await chat("hang", { timeoutMs: 60_000, budgetMs: 300 }).writeAll(briefs("budget 1", "budget 2", "budget 3"));
    expect(requestsOf("hang").filter((s) => s.startsWith("budget"))).toEqual(["budget 1"]);
    expect(written.map((w) => w.fallback)).toEqual(["budget_spent", "budget_spent", "budget_spent"]);
    expect(written[0]!.writer_error).toBe("no answer before the narration budget of 0.3 s for this scan ran out");
    expect(written[1]!.writer_error).toBe("the narration budget of 0.3 s for this scan is spent; the rest of this scan uses the template");
    expect(written[2]).toMatchObject({ ...offline(brief("budget 3")), writer: "offline" });
  });

  test("an unreachable endpoint falls back to the template", async () => {
    const [written] = await new ChatNarrator({ url: "http://127.0.0.1:9/v1", model: "m", timeoutMs: 2000, budgetMs: 10_000 }, silentLogger).writeAll([brief()]);
    expect(written).toMatchObject({ writer: "offline", fallback: "endpoint_failed" });
  });
});

describe("narratives in a scan", () => {
  let roots: string[] = [];
  let states: StateStore[] = [];
  afterAll(async () => {
    for (const state of states) await state.close();
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  async function scanWith(mode: string, timeoutMs = 5000) {
    const root = await copyOfFixture();
    const state = openSqliteState(snapshotOf(root).dir.stateDb);
    roots.push(root);
    states.push(state);
    const narrator = narratorFor({ url: endpoint(mode), model: "tiny-model", timeoutMs, budgetMs: 60_000 }, silentLogger);
    await scan(root, state, snapshotOf(root).manifest.as_of.slice(0, 10), { narrator });
    const rows = await state.all<{ evidence: string; severity: string }>("SELECT evidence, severity FROM signals WHERE signal_type = 'narrative-synthesis'");
    return { state, rows: rows.map((r) => ({ severity: r.severity, evidence: JSON.parse(r.evidence) as Record<string, any> })) };
  }

  test("the catalog's evidence schema has the fallback and its reason", () => {
    const properties = (evidenceJsonSchema(narrativeSynthesis) as { properties: Record<string, { description?: string; enum?: string[] }> }).properties;
    expect(properties.fallback!.enum).toEqual(["endpoint_failed", "endpoint_timed_out", "breaker_open", "budget_spent", "call_cap", "unbacked_figures"]);
    expect(properties.writer!.description).toContain("CKG_NARRATIVE_BUDGET_MS (default 120 s)");
    expect(properties).toHaveProperty("unbacked_figures");
  });

  test("the entity route's description states this server's narration limits", () => {
    const limits = { query_timeout_ms: 10_000, narrative_timeout_ms: 4000, narrative_budget_ms: 50_000 };
    expect(describeOperation(entityInsights, { ...limits, narrative_url: "http://127.0.0.1:9/v1" })).toContain(
      "each call within 4 s and all of a scan's calls within 50 s, none after 3 failures in a row",
    );
    expect(describeOperation(entityInsights, { ...limits, narrative_url: undefined })).toContain("no narrative endpoint is configured on this server");
  });

  test("an endpoint restating the template in its own number formats writes every narrative, linked to their signals", async () => {
    // "12.34M USD" becomes "$12.34 million", "3.48%" is rounded to "3.5%".
    const restated = (draft: string) =>
      draft.replace(/(\d+\.\d+)M USD/g, "$$$1 million").replace(/(\d+\.\d\d+)%/g, (_, figure: string) => `${Number(figure).toFixed(1)}%`);
    reply = (facts) => `Briefing on ${facts.subject}\n${restated(facts.draft)}`;
    const { state, rows } = await scanWith("reply");
    expect(rows.length).toBeGreaterThan(0);
    const severity = { urgent: "high", watchlist: "moderate", informational: "low" } as Record<string, string>;
    for (const { evidence, severity: band } of rows) {
      expect(evidence).toMatchObject({ writer: "llm:tiny-model", title: `Briefing on ${evidence.subject}` });
      expect(evidence.fallback).toBeUndefined();
      // The endpoint wrote the words; the scan adds that they rest on demo data, once, at the end.
      expect(evidence.text).toEndWith(SYNTHETIC_MARK);
      expect(evidence.summary).toBe(`${evidence.title} ${SYNTHETIC_MARK}`);
      expect(band).toBe(severity[evidence.actionability]!);
      expect(evidence.linked_signals.length).toBeGreaterThanOrEqual(2);
      for (const link of evidence.linked_signals) {
        expect(await state.get("SELECT 1 AS one FROM signals WHERE signal_id = ?", [link.signal_id])).not.toBeNull();
      }
    }
  });

  test("a scan with an endpoint that never answers: the first narratives time out, then the template with the breaker's reason", async () => {
    const before = requestsOf("hang").length;
    const { rows } = await scanWith("hang", 150);
    const called = requestsOf("hang").slice(before);
    expect(called.length).toBe(BREAKER_FAILURES);
    expect(rows.length).toBeGreaterThan(BREAKER_FAILURES);
    const timedOut = rows.filter((r) => r.evidence.fallback === "endpoint_timed_out").map((r) => r.evidence.subject);
    expect(timedOut.sort()).toEqual([...called].sort());
    for (const { evidence } of rows) {
      expect(evidence.writer).toBe("offline");
      if (evidence.fallback === "endpoint_timed_out") continue;
      expect(evidence).toMatchObject({ fallback: "breaker_open", writer_error: "the endpoint failed 3 times in a row (the last: no answer within 150 ms); the rest of this scan uses the template" });
    }
  });
});

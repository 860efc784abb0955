/**
 * @module signals/narratives
 * Briefings that link signals. The offline writer is deterministic: the same signals give the same
 * words, built from each signal's one-sentence summary and its numbers. An OpenAI-compatible chat
 * endpoint can write them instead; any failure (network, status, time limit, empty answer) falls
 * back to the offline writer, and the evidence says which writer wrote it and why.
 */
import type { Logger } from "../log.ts";
import type { Severity } from "./bands.ts";

export const ACTIONABILITY = ["urgent", "watchlist", "informational"] as const;
export type Actionability = (typeof ACTIONABILITY)[number];

export interface LinkedSignal {
  signalId: string;
  type: string;
  category: string;
  severity: Severity;
  score: number;
  summary: string;
}

export interface Brief {
  scope: "entity" | "sector" | "cross-domain";
  /** What it is about: an entity's name, or a sector. */
  subject: string;
  actionability: Actionability;
  signals: LinkedSignal[];
}

export interface Written {
  title: string;
  text: string;
  writer: string;
  writer_error?: string;
}

export interface Narrator {
  write(brief: Brief): Promise<Written>;
}

/** The scan's choice of narrator: an endpoint when configured, the offline writer otherwise. */
export function narratorFor(options: { url?: string; model: string; apiKey?: string; timeoutMs: number; maxCalls: number }, log: Logger): Narrator {
  return options.url ? new ChatNarrator(options.url, options.model, options.apiKey, options.timeoutMs, options.maxCalls, log) : new OfflineNarrator();
}

export class OfflineNarrator implements Narrator {
  async write(brief: Brief): Promise<Written> {
    return { ...offline(brief), writer: "offline" };
  }
}

export function offline(brief: Brief): { title: string; text: string } {
  const counts = { high: 0, moderate: 0, low: 0 };
  for (const s of brief.signals) counts[s.severity]++;
  const categories = [...new Set(brief.signals.map((s) => s.category))];
  const types = [...new Set(brief.signals.map((s) => s.type))];
  const where = brief.scope === "sector" ? `the ${brief.subject} sector` : brief.subject;
  const title = `${capitalise(brief.actionability)}: ${where}, ${types.length} signal type${types.length === 1 ? "" : "s"} (${types.slice(0, 3).join(", ")}${types.length > 3 ? ", ..." : ""})`;
  const severities = (["high", "moderate", "low"] as const).filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${s}`).join(", ");
  const ordered = [...brief.signals].sort((a, b) => b.score - a.score || a.signalId.localeCompare(b.signalId));
  const lines = ordered.slice(0, 6).map((s) => `${s.summary} [${s.type}, ${s.severity}, score ${s.score.toFixed(0)}]`);
  const action = {
    urgent: "Act now: several independent signals point the same way, at least one of them high.",
    watchlist: "Watch: the signals are material but not yet severe together.",
    informational: "For information: the signals are mild.",
  }[brief.actionability];
  const text =
    `${capitalise(where)} shows ${brief.signals.length} signal${brief.signals.length === 1 ? "" : "s"} (${severities}) across ${categories.join(" and ")}. ` +
    `${lines.join(" ")}${ordered.length > 6 ? ` ${ordered.length - 6} more signals are linked.` : ""} ${action}`;
  return { title, text };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** POST {url}/chat/completions (OpenAI-compatible) with the brief's facts; temperature 0. */
export class ChatNarrator implements Narrator {
  private calls = 0;

  constructor(
    private readonly url: string,
    private readonly model: string,
    private readonly apiKey: string | undefined,
    private readonly timeoutMs: number,
    private readonly maxCalls: number,
    private readonly log: Logger,
  ) {}

  async write(brief: Brief): Promise<Written> {
    if (this.calls >= this.maxCalls) return { ...offline(brief), writer: "offline", writer_error: `more than ${this.maxCalls} narratives in one scan` };
    this.calls++;
    const facts = offline(brief);
    try {
      const response = await fetch(`${this.url.replace(/\/$/, "")}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}) },
        signal: AbortSignal.timeout(this.timeoutMs),
        body: JSON.stringify({
          model: this.model,
          temperature: 0,
          messages: [
            {
              role: "system",
              content:
                "You write short briefings for crypto analysts. Use only the facts given; keep every number as given. " +
                "Answer with a title on the first line, then one paragraph of at most 120 words.",
            },
            { role: "user", content: JSON.stringify({ scope: brief.scope, subject: brief.subject, actionability: brief.actionability, signals: brief.signals, draft: facts.text }) },
          ],
        }),
      });
      if (!response.ok) throw new Error(`the endpoint answered ${response.status}`);
      const body = (await response.json()) as { choices?: { message?: { content?: string } }[] };
      const content = body.choices?.[0]?.message?.content?.trim();
      if (!content) throw new Error("the endpoint answered without text");
      const [title, ...rest] = content.split("\n");
      const text = rest.join("\n").trim();
      return { title: title!.replace(/^#+\s*/, "").trim(), text: text || title!, writer: `llm:${this.model}` };
    } catch (error) {
      const reason = (error as Error).name === "TimeoutError" ? `no answer within ${this.timeoutMs} ms` : (error as Error).message;
      this.log.warn({ err: reason }, "narrative endpoint failed; the offline writer wrote this narrative");
      return { ...facts, writer: "offline", writer_error: reason };
    }
  }
}

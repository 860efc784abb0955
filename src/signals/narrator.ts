/**
 * @module signals/narrator
 * The scan's narrator: the template (signals/narratives.ts) unless an OpenAI-compatible chat
 * endpoint is configured, which then writes the narratives, one after another, within limits that
 * keep a bad endpoint from holding the scan. Without them, an endpoint that accepted the connection
 * and never answered cost 30 s per narrative, about 100 minutes per scan:
 *
 * - each call has a time limit (`narrative_timeout_ms`), and all of one scan's calls a budget
 *   (`narrative_budget_ms`): a call never outlasts what is left of the budget, and once it is spent
 *   no call is made;
 * - a circuit breaker: after BREAKER_FAILURES failures in a row (an error, a status, no text, the time
 *   limit) the endpoint is not called again in this scan;
 * - at most MAX_CALLS calls a scan, a bound on what a paid endpoint costs;
 * - an answer is kept only if every figure it states is backed by the evidence of the signals it
 *   links, the scan's date, or what the template itself states (signals/figures.ts).
 * Wherever the endpoint's text is not used the template stands, with `fallback` and `writer_error`
 * saying why. The calls are made in order, not at once: the order decides which narratives the
 * budget reaches, so it does not depend on timing, and an endpoint is not flooded.
 */
import type { Logger } from "../log.ts";
import { Facts, unbackedFigures } from "./figures.ts";
import { type Brief, type Fallback, type Narrator, OfflineNarrator, type Written, offline } from "./narratives.ts";

/** Failures in a row that open the breaker: one may be a hiccup, three are an endpoint that is down. */
export const BREAKER_FAILURES = 3;
/** Calls a scan may make (a paid endpoint's cost), whatever the budget leaves. */
export const MAX_CALLS = 200;

export interface ChatOptions {
  /** Base URL: requests go to `<url>/chat/completions`. */
  url: string;
  model: string;
  apiKey?: string;
  /** Time limit of one call, ms. */
  timeoutMs: number;
  /** Time all of one scan's calls may take together, ms. */
  budgetMs: number;
  /** Calls a scan may make; MAX_CALLS unless given. */
  maxCalls?: number;
}

/** The scan's choice of narrator: an endpoint when configured, the template otherwise. */
export function narratorFor(options: Omit<ChatOptions, "url"> & { url?: string }, log: Logger): Narrator {
  return options.url ? new ChatNarrator({ ...options, url: options.url }, log) : new OfflineNarrator();
}

/** How this server's narratives are written, for the routes' descriptions (the settings quoted). */
export function describeNarration(settings: { narrative_url?: string; narrative_timeout_ms: number; narrative_budget_ms: number }): string {
  if (!settings.narrative_url) return "Narratives are written by a deterministic template from the linked signals (no narrative endpoint is configured on this server).";
  return (
    `Narratives are written by this server's OpenAI-compatible endpoint, each call within ${seconds(settings.narrative_timeout_ms)} and all of a ` +
    `scan's calls within ${seconds(settings.narrative_budget_ms)}, none after ${BREAKER_FAILURES} failures in a row; its text is kept only when ` +
    "every figure in it is in the linked signals' evidence. Otherwise the deterministic template writes them, and the narrative-synthesis " +
    "signal's evidence says why (fallback, writer_error)."
  );
}

/** Why one call's text was not used. */
class CallFailure extends Error {
  constructor(
    message: string,
    readonly fallback: Fallback,
  ) {
    super(message);
  }
}

/** POST {url}/chat/completions (OpenAI-compatible) with the brief's facts; temperature 0. */
export class ChatNarrator implements Narrator {
  private readonly maxCalls: number;

  constructor(
    private readonly options: ChatOptions,
    private readonly log: Logger,
  ) {
    this.maxCalls = options.maxCalls ?? MAX_CALLS;
  }

  async writeAll(briefs: readonly Brief[]): Promise<Written[]> {
    const deadline = performance.now() + this.options.budgetMs;
    const budget = seconds(this.options.budgetMs);
    let calls = 0;
    let failures = 0;
    /** Set once the endpoint is no longer called in this scan: the reason every later narrative gives. */
    let closed: { fallback: Fallback; reason: string } | undefined;
    const written: Written[] = [];
    for (const brief of briefs) {
      const template = offline(brief);
      const templated = (fallback: Fallback, reason: string, more: Partial<Written> = {}): Written => ({ ...template, writer: "offline", writer_error: reason, fallback, ...more });
      if (!closed && calls >= this.maxCalls) closed = { fallback: "call_cap", reason: `more than ${this.maxCalls} narratives in one scan; the rest of this scan uses the template` };
      const left = deadline - performance.now();
      if (!closed && left <= 0) closed = { fallback: "budget_spent", reason: `the narration budget of ${budget} for this scan is spent; the rest of this scan uses the template` };
      if (closed) {
        written.push(templated(closed.fallback, closed.reason));
        continue;
      }
      calls++;
      try {
        const { title, text } = await this.call(brief, template.text, left);
        // An answer, even one the figure check refuses, shows the endpoint works: the breaker is for
        // an endpoint that is down, and the budget bounds what refused answers cost.
        failures = 0;
        const unbacked = unbackedFigures(`${title}\n${text}`, factsOf(brief, template));
        if (unbacked.length > 0) {
          const reason = `the endpoint's text states ${unbacked.map((f) => `"${f}"`).join(", ")}, which the linked signals' evidence does not hold; the template stands`;
          this.log.warn({ subject: brief.subject, unbacked }, "narrative endpoint stated figures the evidence does not hold; the template wrote this narrative");
          written.push(templated("unbacked_figures", reason, { unbacked_figures: unbacked }));
        } else {
          written.push({ title, text, writer: `llm:${this.options.model}` });
        }
      } catch (error) {
        const failure = error instanceof CallFailure ? error : new CallFailure((error as Error).message, "endpoint_failed");
        this.log.warn({ subject: brief.subject, err: failure.message }, "narrative endpoint failed; the template wrote this narrative");
        written.push(templated(failure.fallback, failure.message));
        failures++;
        if (failure.fallback === "budget_spent") closed = { fallback: "budget_spent", reason: `the narration budget of ${budget} for this scan is spent; the rest of this scan uses the template` };
        else if (failures >= BREAKER_FAILURES) {
          closed = { fallback: "breaker_open", reason: `the endpoint failed ${failures} times in a row (the last: ${failure.message}); the rest of this scan uses the template` };
        }
        if (closed) this.log.warn({ calls, narratives: briefs.length }, `narrative endpoint not called again in this scan: ${closed.reason}`);
      }
    }
    return written;
  }

  /** One call, limited to the per-call time limit or what is left of the budget, whichever is less. */
  private async call(brief: Brief, draft: string, left: number): Promise<{ title: string; text: string }> {
    const { url, model, apiKey, timeoutMs } = this.options;
    const byBudget = left < timeoutMs;
    const limit = Math.max(1, Math.floor(Math.min(timeoutMs, left)));
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), limit);
    try {
      const response = await fetch(`${url.replace(/\/$/, "")}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        signal: controller.signal,
        body: JSON.stringify({
          model,
          temperature: 0,
          messages: [
            {
              role: "system",
              content:
                "You write short briefings for crypto analysts. Use only the facts given; keep every number as given and add none. " +
                "Answer with a title on the first line, then one paragraph of at most 120 words.",
            },
            {
              role: "user",
              // The summaries carry the figures; the whole evidence would only lengthen the prompt.
              content: JSON.stringify({
                scope: brief.scope,
                subject: brief.subject,
                actionability: brief.actionability,
                signals: brief.signals.map(({ evidence: _, ...signal }) => signal),
                draft,
              }),
            },
          ],
        }),
      });
      if (!response.ok) throw new CallFailure(`the endpoint answered ${response.status}`, "endpoint_failed");
      const body = (await response.json()) as { choices?: { message?: { content?: string } }[] };
      const content = body.choices?.[0]?.message?.content?.trim();
      if (!content) throw new CallFailure("the endpoint answered without text", "endpoint_failed");
      const [title, ...rest] = content.split("\n");
      const text = rest.join("\n").trim();
      return { title: title!.replace(/^#+\s*/, "").trim(), text: text || title! };
    } catch (error) {
      // The abort may land while the headers or the body are awaited; either way it is the time limit.
      if (!controller.signal.aborted) throw error;
      throw byBudget
        ? new CallFailure(`no answer before the narration budget of ${seconds(this.options.budgetMs)} for this scan ran out`, "budget_spent")
        : new CallFailure(`no answer within ${timeoutMs} ms`, "endpoint_timed_out");
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * What a narrative may state: the figures of the linked signals' evidence (their summaries, values,
 * data points and windows), their scores, the subject's name, the scan's date, and what the
 * template says itself (the counts of signals, of each severity and of types; rounded scores).
 */
function factsOf(brief: Brief, template: { title: string; text: string }): Facts {
  return new Facts().add(
    brief.subject,
    brief.asOf,
    template.title,
    template.text,
    brief.signals.map((s) => [s.score, s.summary, s.evidence]),
  );
}

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

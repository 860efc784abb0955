/**
 * @module signals/narratives
 * Briefings that link signals: what a narrator is given and gives back, and the offline writer (the
 * template). The template is deterministic: the same signals give the same words, built from each
 * signal's one-sentence summary and its numbers. An OpenAI-compatible chat endpoint can write them
 * instead (signals/narrator.ts); whenever its text is not used the template stands, and the
 * evidence says which writer wrote it and why.
 */
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
  /** The signal's whole evidence: the figures an endpoint's text may state are the ones found here. */
  evidence: Record<string, unknown>;
}

export interface Brief {
  scope: "entity" | "sector" | "cross-domain";
  /** What it is about: an entity's name, or a sector. */
  subject: string;
  actionability: Actionability;
  /** The scan's as-of date: a narrative may name it. */
  asOf: string;
  signals: LinkedSignal[];
}

/** Why the template stands where an endpoint is configured, as a code (`writer_error` says it in words). */
export const FALLBACKS = ["endpoint_failed", "endpoint_timed_out", "breaker_open", "budget_spent", "call_cap", "unbacked_figures"] as const;
export type Fallback = (typeof FALLBACKS)[number];

export interface Written {
  title: string;
  text: string;
  /** "offline" (the template), or "llm:<model>". */
  writer: string;
  writer_error?: string;
  fallback?: Fallback;
  /** The endpoint's figures that no linked signal's evidence holds, as it wrote them. */
  unbacked_figures?: string[];
}

export interface Narrator {
  /**
   * Writes one scan's narratives, in the order given. Whatever limits a narrator keeps (a time
   * budget, a circuit breaker) span this one call, so every scan starts afresh.
   */
  writeAll(briefs: readonly Brief[]): Promise<Written[]>;
}

export class OfflineNarrator implements Narrator {
  async writeAll(briefs: readonly Brief[]): Promise<Written[]> {
    return briefs.map((brief) => ({ ...offline(brief), writer: "offline" }));
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

/**
 * @module demo/series/unlocks
 * Unlock events of every vesting schedule (monthly or quarterly tranches from the cliff to the end,
 * past and scheduled), and the circulating share of supply they imply: a vesting token circulates
 * its float plus everything unlocked so far. Token series and unlock values are built on this.
 */
import type { GenContext, VestingInfo } from "../synthetic/context.ts";
import { MIN_FLOAT } from "../synthetic/vesting.ts";
import { addDays } from "../../time.ts";

export interface UnlockEvent {
  token: string;
  date: string;
  schedule: string;
  group: VestingInfo["group"];
  /** Share of total supply this event releases. */
  share: number;
  /** Share of the circulating supply just before it (cliff lumps planted later add to this list). */
  shareOfCirculating: number;
}

export interface VestingToken {
  /** Share of supply circulating outside vesting from the start. */
  float: number;
  events: UnlockEvent[];
  /** Share of supply circulating on the as-of date. */
  circulatingNow: number;
}

/** Tranche dates of a schedule: every month (30 days) or quarter (91 days) from the cliff to the end. */
function trancheDates(schedule: VestingInfo): string[] {
  const step = schedule.frequency === "monthly" ? 30 : 91;
  const out: string[] = [];
  for (let date = schedule.cliff; date <= schedule.end; date = addDays(date, step)) out.push(date);
  return out.length > 0 ? out : [schedule.cliff];
}

export function vestingTokens(ctx: GenContext, asOf: string): Map<string, VestingToken> {
  const byToken = new Map<string, VestingInfo[]>();
  for (const schedule of ctx.schedules) {
    const list = byToken.get(schedule.token) ?? [];
    list.push(schedule);
    byToken.set(schedule.token, list);
  }
  const out = new Map<string, VestingToken>();
  for (const [token, schedules] of byToken) {
    const vested = schedules.reduce((sum, s) => sum + s.share, 0);
    const float = Math.max(MIN_FLOAT, 1 - vested);
    const events: UnlockEvent[] = [];
    for (const schedule of schedules) {
      const dates = trancheDates(schedule);
      for (const date of dates) {
        events.push({ token, date, schedule: schedule.id, group: schedule.group, share: schedule.share / dates.length, shareOfCirculating: 0 });
      }
    }
    const circulatingNow = recompute(float, events, asOf);
    out.set(token, { float, events, circulatingNow });
  }
  return out;
}

/** Orders events and sets each one's share of circulating supply; returns the share circulating on `asOf`. */
export function recompute(float: number, events: UnlockEvent[], asOf: string): number {
  events.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.schedule.localeCompare(b.schedule)));
  let circulating = float;
  let now = float;
  for (let i = 0; i < events.length; ) {
    // Events of one day share the circulating supply of the day before.
    let j = i;
    let released = 0;
    for (; j < events.length && events[j]!.date === events[i]!.date; j++) {
      events[j]!.shareOfCirculating = events[j]!.share / circulating;
      released += events[j]!.share;
    }
    circulating += released;
    if (events[i]!.date <= asOf) now = circulating;
    i = j;
  }
  return now;
}

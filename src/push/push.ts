/**
 * @module push/push
 * Push delivery in a running server: new events (heard from the feed, which polls the outbox) are
 * fanned out to webhook deliveries and handed to the delivery worker, which sends them without the
 * round waiting for any request (push/deliver.ts); retries are claimed by the worker's timer when
 * due, and a check every few seconds catches what another replica left (a lease run out); the outbox and
 * finished deliveries older than the retry window (plus a day) are pruned. Every replica runs it:
 * the fan-out's lock and the deliveries' leases keep them from doubling any work.
 */
import type { Logger } from "../log.ts";
import type { StateStore } from "../store/state.ts";
import { type DeliverySettings, DeliveryWorker } from "./deliver.ts";
import { dispatch } from "./dispatch.ts";
import type { EventFeed } from "./feed.ts";
import { SingleFlight } from "./single-flight.ts";

/**
 * How often due deliveries are looked for besides the worker's own timer, which knows only the
 * retries this process recorded: another replica's lease that ran out, a retry it recorded then died.
 */
const RETRY_CHECK_MS = 5000;
const PRUNE_EVERY_MS = 3_600_000;

export class Push {
  readonly worker: DeliveryWorker;
  private readonly rounds: SingleFlight;
  /** New events were heard (or the server started): the next round fans out before it sends. */
  private fanOut = true;
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopListening: (() => void) | undefined;
  private lastPrune = 0;
  private closed = false;

  constructor(
    private readonly state: StateStore,
    private readonly feed: EventFeed,
    private readonly settings: DeliverySettings,
    private readonly log: Logger,
  ) {
    this.worker = new DeliveryWorker(state, settings, log);
    this.rounds = new SingleFlight(
      () => this.round(),
      (error) => log.warn({ err: error }, "push: a delivery round failed (tried again in a second)"),
    );
  }

  /** Catches up (events committed while no server ran, deliveries left mid-way by a crash), then follows the feed. */
  async start(): Promise<void> {
    this.stopListening = await this.feed.listen(() => this.kick(true));
    this.timer = setInterval(() => this.kick(), RETRY_CHECK_MS);
    this.timer.unref();
    this.kick();
  }

  /** Runs a round now, or right after the one running; `fanOut`: new events were committed. */
  kick(fanOut = false): void {
    if (this.closed) return;
    if (fanOut) this.fanOut = true;
    this.rounds.run();
  }

  /** Waits for the round in flight and the requests it started, with their records (tests). */
  async settled(): Promise<void> {
    await this.rounds.settled();
    await this.worker.settled();
  }

  /** Stops: requests in flight are abandoned (their deliveries released, sent again after a restart). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.stopListening?.();
    await this.rounds.settled();
    await this.worker.close();
  }

  private async round(): Promise<void> {
    if (this.fanOut) {
      this.fanOut = false;
      // Sending starts as soon as the first part of a large fan-out is written.
      const made = await dispatch(this.state, new Date(), () => this.worker.pump()).catch((error) => {
        this.fanOut = true; // not fanned out: the next round tries again
        throw error;
      });
      if (made > 0) this.log.debug({ deliveries: made }, "push: events fanned out");
    }
    // Claims and starts what is due; the requests finish on their own, each recorded as it comes.
    this.worker.pump();
    if (Date.now() - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = Date.now();
      await this.prune();
    }
  }

  private async prune(): Promise<void> {
    const before = new Date(Date.now() - (this.settings.webhook_retry_hours + 24) * 3_600_000).toISOString();
    const deliveries = await this.state.run("DELETE FROM deliveries WHERE status <> 'pending' AND finished_at < ?", [before]);
    // Only events already fanned out: an event no delivery was made for yet is never dropped.
    const events = await this.state.run("DELETE FROM signal_events WHERE at < ? AND id <= (SELECT signal_event FROM push_dispatch WHERE name = 'webhooks')", [before]);
    if (deliveries + events > 0) this.log.info({ deliveries, signal_events: events }, "push: pruned what is past the retry window");
  }
}

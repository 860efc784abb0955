/**
 * @module push/single-flight
 * Work asked for again while it runs is run once more after it, never twice at once and never
 * lost: the event feed's reads and push delivery's rounds are asked for by timers and by commits
 * alike, and each run covers everything asked before it started.
 */
export class SingleFlight {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Runs the work now, or right after the run in flight. */
  run(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.work()
      .catch(this.onError)
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.run();
        }
      });
  }

  /** Resolves once no run is in flight or asked for. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }
}

/**
 * @module pipeline
 * A run as a list of named stages, each a function with a typed input and output, run in order by
 * one small runner. An ingest (ingest/ingest.ts) and a signal scan (signals/scan.ts) are each one
 * such list. A stage reads the run's input merged with what the stages before it gave, and adds
 * its own output; the types follow the list, so a stage that reads what no earlier stage gives
 * does not compile. The runner logs each stage by name (debug), records how long each took for the
 * later stages to read (tools.ms: a run's report says where its time went), and when the run ends,
 * succeeded or failed, releases what the stages hold (a DuckDB instance, a lease), last taken first.
 *
 * @example
 * const run = Pipeline.of<{ dir: string }>("ingest").stage("fetch", fetch).stage("parse", parse);
 * const output = await run.run({ dir }, log); // a later stage reads tools.ms.fetch
 */
import type { Logger } from "./log.ts";

/** What a stage may use besides its input. */
export interface StageTools {
  /**
   * Runs `release` when the run ends, whether it succeeded or failed (then told the error). A
   * release should not throw: the run's own error is what its caller needs to see.
   */
  defer(release: (error: Error | undefined) => unknown): void;
  /** How long each stage finished so far took, in milliseconds. */
  readonly ms: Readonly<Record<string, number>>;
}

export type Stage<In, Out> = (input: In, tools: StageTools) => Out | Promise<Out>;

type Merged<A, B> = Omit<A, keyof B> & B;

export class Pipeline<In extends object, Out extends object = In> {
  private constructor(
    readonly name: string,
    private readonly stages: readonly { name: string; run: Stage<never, object> }[],
  ) {}

  static of<In extends object>(name: string): Pipeline<In> {
    return new Pipeline(name, []);
  }

  /** The list with `run` added as its last stage, `name`. */
  stage<Added extends object>(name: string, run: Stage<Out, Added>): Pipeline<In, Merged<Out, Added>> {
    if (this.stages.some((s) => s.name === name)) throw new Error(`${this.name}: two stages named ${name}`);
    return new Pipeline(this.name, [...this.stages, { name, run: run as Stage<never, object> }]);
  }

  /** Runs every stage in order; the merged outputs. A stage's error ends the run (its releases run) and is thrown as it is. */
  async run(input: In, log: Logger): Promise<Out> {
    const ms: Record<string, number> = {};
    const releases: ((error: Error | undefined) => unknown)[] = [];
    const tools: StageTools = { defer: (release) => void releases.push(release), ms };
    let failure: Error | undefined;
    let current: object = input;
    let at = "";
    try {
      for (const [index, stage] of this.stages.entries()) {
        at = stage.name;
        const started = performance.now();
        const added = await (stage.run as Stage<object, object>)(current, tools);
        ms[stage.name] = Math.round(performance.now() - started);
        current = { ...current, ...added };
        log.debug({ pipeline: this.name, stage: stage.name, index, total: this.stages.length, ms: ms[stage.name] }, "stage done");
      }
      return current as Out;
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      log.debug({ pipeline: this.name, stage: at, err: failure.message }, "stage failed");
      throw error;
    } finally {
      for (const release of releases.reverse()) await release(failure);
    }
  }
}

/**
 * What the push benchmarks share: the receivers' process (push-receiver.ts) and what it reports,
 * an event committed into a server's state database as a scan's child process commits one, and
 * resident memory from /proc.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { SignalEvents } from "../../src/signals/outbox.ts";
import type { StateStore } from "../../src/store/state.ts";

export const now = () => performance.timeOrigin + performance.now();

/** Polls `done` every 2 ms; throws naming `what` after `ms`. */
export async function until(what: string, done: () => boolean, ms = 600_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`push bench: timed out waiting for ${what}`);
    await Bun.sleep(2);
  }
}

/** Lines of a child's stdout, handed to `onLine` as they come. */
export async function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of stream) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf("\n");
    while (end >= 0) {
      onLine(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      end = buffer.indexOf("\n");
    }
  }
}

export type ReceiverKind = "ok" | "hang" | "fail";

export interface Receivers {
  ports: { port: number; kind: ReceiverKind }[];
  /** The receivers' process. */
  pid: number;
  /** Arrival times by kind, then signal id. */
  arrivals: Record<ReceiverKind, Map<string, number[]>>;
  /** Arrival times at each port, by signal id. */
  byPort: Map<number, Map<string, number[]>>;
  count(kind: ReceiverKind, id: string): number;
  stop(): void;
}

/** A receiver process with `ok`, `hang` and `fail` receivers (push-receiver.ts). */
export async function startReceivers(ok: number, hang = 0, fail = 0): Promise<Receivers> {
  const child = Bun.spawn(["bun", join(import.meta.dir, "push-receiver.ts"), String(ok), String(hang), String(fail)], { stdout: "pipe", stderr: "inherit" });
  const receivers: Receivers = {
    ports: [],
    pid: child.pid,
    arrivals: { ok: new Map(), hang: new Map(), fail: new Map() },
    byPort: new Map(),
    count: (kind, id) => receivers.arrivals[kind].get(id)?.length ?? 0,
    stop: () => child.kill(),
  };
  await new Promise<void>((resolve) => {
    void readLines(child.stdout, (line) => {
      const [first, second, third, fourth] = line.split(" ");
      if (first === "ready") return resolve();
      if (first === "port") {
        receivers.ports.push({ port: Number(second), kind: third as ReceiverKind });
        return;
      }
      const at = Number(third);
      for (const byId of [receivers.arrivals[first as ReceiverKind], receivers.byPort.get(Number(fourth)) ?? receivers.byPort.set(Number(fourth), new Map()).get(Number(fourth))!]) {
        const list = byId.get(second!) ?? [];
        list.push(at);
        byId.set(second!, list);
      }
    });
  });
  return receivers;
}

/** Commits one signal event (every subscription with `signals: {}` takes it); returns when it committed. */
export async function commitEvent(state: StateStore, id: string): Promise<number> {
  const events = new SignalEvents({ scanId: "bench", now: new Date().toISOString() });
  events.add("signal.new", { signal_id: id, signal_type: "stablecoin-depeg", entities: "[]", score: 80, severity: "high", qualification: "qualified", data_as_of: "2026-11-26" });
  await state.transaction(async (tx) => tx.batch(events.writes()));
  return now();
}

/** Resident memory of a process and its children, in MiB (/proc). */
export function rssMiB(pid: number): number {
  const own = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
  const children = readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean));
  return own + children.reduce((sum, child) => sum + rssMiB(Number(child)), 0);
}

/** CPU time (user + system) a process has used, in ms (/proc; clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
  // After the command's closing parenthesis: state is field 3, utime 14 and stime 15 (1-based, proc(5)).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

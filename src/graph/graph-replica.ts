/**
 * @module graph/graph-replica
 * The server's side of one graph process (a Replica: spawned child, pending requests, the query it
 * is running) and the Hub, the Unix socket every graph process connects to and names itself on.
 * The pool (graph-pool.ts) decides what runs where; this is only the plumbing to the processes.
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { CkgError } from "../errors.ts";
import { type Frame, FrameReader, SocketWriter } from "./graph-channel.ts";
import type { GraphError, GraphRequest } from "./protocol.ts";

/** A request to a graph process, before the replica numbers it. */
export type UnnumberedRequest = GraphRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;

/** A query of the pool: queued, then running on `replica` until it settles or its timer fires. */
export interface Job {
  request: UnnumberedRequest;
  timeoutMs: number;
  resolve(value: string): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
  replica?: Replica;
}

export type ReplicaState = "loading" | "ready" | "failed" | "dead";

/** One graph process as the server sees it; `job` is the query it is running, set by the pool. */
export class Replica {
  state: ReplicaState = "loading";
  job: Job | undefined;
  loadMs: number | undefined;
  quads: number | undefined;
  /** Set when we end the process on purpose, so its exit is not treated as a crash. */
  stopping = false;
  /** Resolves once loading has succeeded or failed. */
  settled: Promise<void> = Promise.resolve();
  readonly token = crypto.randomUUID();
  private readonly proc: Subprocess;
  private readonly pending = new Map<number, { resolve(text: string): void; reject(e: Error): void }>();
  private nextId = 1;
  private writer: SocketWriter | undefined;
  private readonly connected: Promise<void>;
  private onConnect!: () => void;
  private onNeverConnected!: (error: Error) => void;

  constructor(command: string[], socketPath: string, onExit: (replica: Replica, code: number | null) => void) {
    this.connected = new Promise((resolve, reject) => {
      this.onConnect = resolve;
      this.onNeverConnected = reject;
    });
    this.proc = Bun.spawn(command, {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, CKG_GRAPH_SOCKET: socketPath, CKG_GRAPH_TOKEN: this.token },
      onExit: (_proc, code) => {
        const stopped = new CkgError("internal", `The graph process stopped (exit code ${code}).`);
        this.onNeverConnected(stopped);
        for (const { reject } of this.pending.values()) reject(stopped);
        this.pending.clear();
        if (this.state !== "failed") this.state = "dead";
        onExit(this, code);
      },
    });
  }

  get pid(): number {
    return this.proc.pid;
  }

  /** The process said hello on the socket: requests can flow. */
  attach(writer: SocketWriter): void {
    this.writer = writer;
    this.onConnect();
  }

  /** Sends a request; the answer is the reply frame's payload as text. */
  async send(request: UnnumberedRequest): Promise<string> {
    await this.connected;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.writer!.write(`${JSON.stringify({ ...request, id })}\n`);
    });
  }

  receive(frame: Frame): void {
    const waiter = this.pending.get(frame.id);
    if (!waiter) return;
    this.pending.delete(frame.id);
    const text = new TextDecoder().decode(frame.payload);
    if (frame.ok) {
      waiter.resolve(text);
    } else {
      const error = JSON.parse(text) as GraphError;
      waiter.reject(new CkgError(error.code, error.message));
    }
  }

  kill(): void {
    this.stopping = true;
    this.proc.kill("SIGKILL");
  }
}

/** The Unix socket graph processes connect to; each says which replica it is in its first frame. */
export class Hub {
  readonly path = join(tmpdir(), `ckg-graph-${process.pid}-${crypto.randomUUID().slice(0, 8)}.sock`);
  private readonly byToken = new Map<string, Replica>();
  private readonly listener: ReturnType<typeof Bun.listen<{ reader: FrameReader; writer?: SocketWriter; replica?: Replica }>>;

  constructor() {
    const byToken = this.byToken;
    this.listener = Bun.listen<{ reader: FrameReader; writer?: SocketWriter; replica?: Replica }>({
      unix: this.path,
      socket: {
        open(socket) {
          socket.data = { reader: new FrameReader(), writer: new SocketWriter(socket) };
        },
        data(socket, chunk) {
          const state = socket.data;
          state.reader.push(chunk, (frame) => {
            if (state.replica) return state.replica.receive(frame);
            // The first frame (id 0) names the replica.
            const replica = byToken.get(new TextDecoder().decode(frame.payload));
            if (!replica) return socket.end();
            state.replica = replica;
            replica.attach(state.writer!);
          });
        },
        drain(socket) {
          socket.data.writer?.drain();
        },
      },
    });
  }

  register(replica: Replica): void {
    this.byToken.set(replica.token, replica);
  }

  forget(replica: Replica): void {
    this.byToken.delete(replica.token);
  }

  close(): void {
    this.listener.stop(true);
    rmSync(this.path, { force: true });
  }
}

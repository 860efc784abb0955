/**
 * A ckg server in its own process on a free port (tests of the real binary and of `ckg serve`):
 * reads its JSON log lines to learn the port and to let tests look at what it logged.
 */
import type { Subprocess } from "bun";
import { until } from "./until.ts";

export interface ServerProcess {
  url: string;
  process: Subprocess<"ignore", "pipe", "pipe">;
  lines(): Record<string, unknown>[];
  /** What the process wrote to stderr so far (its children's log lines, a crash's last words). */
  stderr(): string;
  /** Resolves once its stdout and stderr are read to their end (all of it is in lines() and stderr()). */
  drained(): Promise<void>;
  waitReady(ms: number): Promise<void>;
  stop(): Promise<void>;
}

/** `cwd`: where the process runs (default: this one's working directory). */
export async function startServer(command: string[], env: Record<string, string> = {}, options: { cwd?: string } = {}): Promise<ServerProcess> {
  const proc = Bun.spawn(command, { cwd: options.cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const lines: Record<string, unknown>[] = [];
  let stderr = "";
  const stderrRead = (async () => {
    for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk);
  })();
  let stdoutRead!: Promise<void>;
  const port = new Promise<number>((resolve, reject) => {
    stdoutRead = (async () => {
      let buffer = "";
      for await (const chunk of proc.stdout) {
        buffer += new TextDecoder().decode(chunk);
        let newline = buffer.indexOf("\n");
        while (newline >= 0) {
          const text = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          newline = buffer.indexOf("\n");
          const line = logLine(text);
          if (!line) continue; // not a log line (a child's output)
          lines.push(line);
          if (line.msg === "listening") resolve(line.port as number);
        }
      }
      reject(new Error(`server exited before listening: ${stderr}`));
    })();
  });
  const url = `http://127.0.0.1:${await port}`;
  return {
    url,
    process: proc,
    lines: () => lines,
    stderr: () => stderr,
    drained: async () => {
      await Promise.all([stdoutRead, stderrRead]);
    },
    async waitReady(ms) {
      let last: unknown;
      await until(
        "the server to be ready (/readyz 200)",
        ms,
        async () => {
          if (proc.exitCode !== null) throw new Error(`the server exited (${proc.exitCode}) before it was ready: ${stderr}`);
          const response = await fetch(`${url}/readyz`);
          if (response.status === 200) return true;
          last = await response.json();
          if ((last as { status?: string }).status === "failed") throw new Error(`server failed: ${JSON.stringify(last)}`);
          return false;
        },
        { every: 100, seen: () => last },
      );
    },
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

function logLine(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

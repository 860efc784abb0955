/**
 * A ckg server in its own process on a free port (tests of the real binary and of `ckg serve`):
 * reads its JSON log lines to learn the port and to let tests look at what it logged.
 */
import type { Subprocess } from "bun";

export interface ServerProcess {
  url: string;
  process: Subprocess<"ignore", "pipe", "pipe">;
  lines(): Record<string, unknown>[];
  /** What the process wrote to stderr so far (its children's log lines, a crash's last words). */
  stderr(): string;
  waitReady(ms: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startServer(command: string[], env: Record<string, string> = {}): Promise<ServerProcess> {
  const proc = Bun.spawn(command, { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const lines: Record<string, unknown>[] = [];
  let stderr = "";
  void (async () => {
    for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk);
  })();
  const port = new Promise<number>((resolve, reject) => {
    void (async () => {
      let buffer = "";
      for await (const chunk of proc.stdout) {
        buffer += new TextDecoder().decode(chunk);
        let newline = buffer.indexOf("\n");
        while (newline >= 0) {
          const text = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          newline = buffer.indexOf("\n");
          try {
            const line = JSON.parse(text) as Record<string, unknown>;
            lines.push(line);
            if (line.msg === "listening") resolve(line.port as number);
          } catch {
            // not a log line (a child's output); ignore
          }
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
    async waitReady(ms) {
      const deadline = performance.now() + ms;
      for (;;) {
        const response = await fetch(`${url}/readyz`).catch(() => undefined);
        if (response?.status === 200) return;
        const body = response ? ((await response.json()) as { status?: string; error?: string }) : undefined;
        if (body?.status === "failed") throw new Error(`server failed: ${body.error}`);
        if (performance.now() > deadline) throw new Error(`not ready after ${ms} ms: ${JSON.stringify(body)}`);
        await Bun.sleep(100);
      }
    },
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/**
 * The push benchmark's webhook receivers, in their own process so they do not share the sender's
 * event loop. `bun push-receiver.ts [ok] [hang] [fail]`: how many receivers of each kind, each on a
 * port of its own on 127.0.0.1 (default: one that answers). `ok` answers 200 at once; `hang` reads
 * the request and never answers (the sender gives up at its time limit); `fail` answers 503.
 * Prints `port <n> <kind>` for each first, then `<kind> <signal_id> <arrival ms> <port>` per request
 * (performance.timeOrigin + now: comparable across processes on one machine), then `ready`.
 */
type Kind = "ok" | "hang" | "fail";
const [ok = 1, hang = 0, fail = 0] = process.argv.slice(2).map(Number);
const kinds: Kind[] = [...Array<Kind>(ok).fill("ok"), ...Array<Kind>(hang).fill("hang"), ...Array<Kind>(fail).fill("fail")];

let lines: string[] = [];
// Lines are written in batches: one write per request would make stdout the receiver's bottleneck.
setInterval(() => {
  if (lines.length === 0) return;
  process.stdout.write(`${lines.join("\n")}\n`);
  lines = [];
}, 5);

for (const kind of kinds) {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const arrived = performance.timeOrigin + performance.now();
      const body = (await request.json()) as { data: { signal_id: string } };
      lines.push(`${kind} ${body.data.signal_id} ${arrived.toFixed(3)} ${server.port}`);
      if (kind === "fail") return new Response("unavailable", { status: 503 });
      // Held until the sender closes the connection (its time limit): never answered.
      if (kind === "hang") return new Promise<Response>((resolve) => request.signal.addEventListener("abort", () => resolve(new Response(null)), { once: true }));
      return new Response("ok");
    },
  });
  process.stdout.write(`port ${server.port} ${kind}\n`);
}
process.stdout.write("ready\n");

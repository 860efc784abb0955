/**
 * The push benchmark's webhook receiver, in its own process so it does not share the sender's
 * event loop: answers 200 at once and prints one line per request, `<signal_id> <arrival ms>`
 * (performance.timeOrigin + now: comparable across processes on one machine). Its first line is
 * `port <n>`.
 */
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const arrived = performance.timeOrigin + performance.now();
    const body = (await request.json()) as { data: { signal_id: string } };
    process.stdout.write(`${body.data.signal_id} ${arrived.toFixed(3)}\n`);
    return new Response("ok");
  },
});
process.stdout.write(`port ${server.port}\n`);

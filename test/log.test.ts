import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { hideSecrets } from "../src/log.ts";

describe("log lines hide secrets", () => {
  test("a secret at the top or one level down is hidden; everything else is kept as given", () => {
    const config = { settlement_key: "0xabc", network: "base" };
    const line = { api_key: "k", config, headers: { authorization: "Bearer t", accept: "json" }, route: "/api/sparql", rows: [1] };
    expect(hideSecrets(line)).toEqual({
      api_key: "(hidden)",
      config: { settlement_key: "(hidden)", network: "base" },
      headers: { authorization: "(hidden)", accept: "json" },
      route: "/api/sparql",
      rows: [1],
    });
    // The caller's objects are not changed.
    expect(config.settlement_key).toBe("0xabc");
  });

  test("the logger writes them hidden (a real logger in a child process, its stderr read)", async () => {
    const script = `import { createLogger } from ${JSON.stringify(join(import.meta.dir, "..", "src", "log.ts"))};
      createLogger("info", 2).info({ api_key: "SECRET-1", config: { settlement_key: "SECRET-2", network: "base" } }, "configured");`;
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "ignore", stderr: "pipe" });
    const text = await new Response(child.stderr).text();
    expect(await child.exited).toBe(0);
    const line = JSON.parse(text.trim().split("\n").at(-1)!);
    expect(line).toMatchObject({ msg: "configured", api_key: "(hidden)", config: { settlement_key: "(hidden)", network: "base" } });
    expect(text).not.toContain("SECRET");
  });

  test("a line without secrets is passed through as is", () => {
    const line = { req_id: "r", status: 200, nested: { a: 1 } };
    expect(hideSecrets(line)).toBe(line);
  });
});

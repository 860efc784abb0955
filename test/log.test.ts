import { describe, expect, test } from "bun:test";
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

  test("a line without secrets is passed through as is", () => {
    const line = { req_id: "r", status: 200, nested: { a: 1 } };
    expect(hideSecrets(line)).toBe(line);
  });
});

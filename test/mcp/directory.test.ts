/**
 * What MCP directories read before connecting: the Server Card at /.well-known/mcp/server-card.json
 * (and at `/mcp/server-card`, where the extension reserves it) over real HTTP, and the MCP
 * Registry's server.json that scripts/server-json.ts writes, each validated with Ajv against a
 * schema written from the published specification (test/mcp/schemas: no package ships either), and
 * held to the live server: the official clients connect at the card's remote, at every protocol
 * version it lists, and hear the same title and version.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { createServer } from "../../src/supervisor/assemble.ts";
import { VERSION } from "../../src/version.ts";
import { EXIT } from "../../src/exit-codes.ts";
import { type Running, startServices } from "../support/fixture.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { MCP_HEADERS } from "../support/fuzz.ts";
import { ERAS, connectV2 } from "./clients.ts";

const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
const schema = (name: string) => JSON.parse(readFileSync(join(import.meta.dir, "schemas", name), "utf8"));
const validCard = ajv.compile(schema("server-card.schema.json"));
const validServerJson = ajv.compile(schema("server.schema.json"));

let running: Running;
let server: { stop(): Promise<void>; base: string };

beforeAll(async () => {
  running = await startServices({ port: 0 });
  // As `ckg serve` does: the base URL from the port the OS gave, so the card names the address it is served from.
  let baseUrl: string | undefined;
  const app = createServer(running.services, { baseUrl: () => baseUrl! });
  const listening = app.listen({ hostname: "127.0.0.1", port: 0 });
  baseUrl = `http://127.0.0.1:${listening.server!.port}`;
  server = { base: baseUrl, stop: async () => void (await listening.stop()) };
});
afterAll(async () => {
  await server?.stop();
  await running?.close();
});

const cardAt = async (path: string, accept?: string) => {
  const response = await fetch(`${server.base}${path}`, accept ? { headers: { accept } } : {});
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
};

describe("the Server Card", () => {
  test("is served free at both locations, valid against the published rules, naming this server", async () => {
    const card = await cardAt("/.well-known/mcp/server-card.json");
    expect(card.status).toBe(200);
    expect(validCard(card.body), JSON.stringify(validCard.errors)).toBe(true);
    expect(card.body).toMatchObject({ name: "1.0.0.127/ckg", version: VERSION, websiteUrl: `${server.base}/docs` });
    expect(card.body.remotes).toEqual([{ type: "streamable-http", url: `${server.base}/mcp`, supportedProtocolVersions: expect.any(Array) }]);
    expect(card.headers.get("content-type")).toBe("application/json");
    expect(card.headers.get("access-control-allow-origin")).toBe("*");
    // The extension's own location gives the same card, in its media type when asked for it.
    const reserved = await cardAt("/mcp/server-card", "application/mcp-server-card+json");
    expect(reserved.body).toEqual(card.body);
    expect(reserved.headers.get("content-type")).toBe("application/mcp-server-card+json");
  });

  test("what it says is what a client connecting at its remote hears: the title and the version", async () => {
    const { body: card } = await cardAt("/.well-known/mcp/server-card.json");
    const { client } = await connectV2(card.remotes[0].url, { mode: "auto" });
    try {
      expect(client.getServerVersion()).toMatchObject({ title: card.title, version: card.version });
    } finally {
      await client.close();
    }
  });

  test("every protocol version it lists is one the server speaks", async () => {
    const { body: card } = await cardAt("/.well-known/mcp/server-card.json");
    const versions: string[] = card.remotes[0].supportedProtocolVersions;
    expect(versions).toContain(ERAS[1]!.revision);
    // A version it does not list is not echoed: the server picks its own, so the check below can fail.
    for (const version of [...versions, "2023-01-01"]) {
      if (version === ERAS[1]!.revision) {
        const { client } = await connectV2(card.remotes[0].url, { mode: { pin: version } });
        expect(client.getNegotiatedProtocolVersion()).toBe(version);
        await client.close();
        continue;
      }
      // A 2025-era client opens with initialize naming its version: the server answers with the same one.
      const response = await fetch(card.remotes[0].url, {
        method: "POST",
        headers: MCP_HEADERS,
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
      });
      const answered = ((await response.json()) as any).result?.protocolVersion;
      if (versions.includes(version)) expect(answered, version).toBe(version);
      else expect(answered).not.toBe(version);
    }
  });

  test("the schema refuses what the published rules refuse (it is not a schema anything passes)", async () => {
    const { body: card } = await cardAt("/.well-known/mcp/server-card.json");
    const broken = [
      { ...card, description: "x".repeat(101) },
      { ...card, name: "ckg" },
      { ...card, version: "^1.2.0" },
      { ...card, packages: [] },
      { ...card, $schema: "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json" },
      { ...card, remotes: [{ type: "websocket", url: card.remotes[0].url }] },
    ];
    for (const document of broken) expect(validCard(document), JSON.stringify(document)).toBe(false);
  });
});

describe("server.json for the MCP Registry (scripts/server-json.ts)", () => {
  const script = join(import.meta.dir, "../../scripts/server-json.ts");
  const run = (...args: string[]) => Bun.spawnSync([process.execPath, script, ...args], { stdout: "pipe", stderr: "pipe" });

  test("valid against the published rules and the official registry's, saying what the card says", async () => {
    const made = run("https://ckg.example.com/");
    expect(made.exitCode).toBe(0);
    const document = JSON.parse(made.stdout.toString());
    expect(validServerJson(document), JSON.stringify(validServerJson.errors)).toBe(true);
    expect(document).toMatchObject({ name: "com.example.ckg/ckg", version: VERSION, remotes: [{ type: "streamable-http", url: "https://ckg.example.com/mcp" }] });
    // The official registry: a remote on the namespace's domain (or below it), publisher metadata within 4 KB.
    const domain = document.name.split("/")[0].split(".").reverse().join(".");
    for (const remote of document.remotes) expect(new URL(remote.url).hostname.endsWith(domain)).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(document._meta["io.modelcontextprotocol.registry/publisher-provided"]))).toBeLessThanOrEqual(4096);
    // Who it is matches the card this server serves, but for the address.
    const { body: card } = await cardAt("/.well-known/mcp/server-card.json");
    for (const key of ["title", "description", "version"]) expect(document[key], key).toBe(card[key]);
    expect(validServerJson({ ...document, description: "x".repeat(101) })).toBe(false);
    expect(validServerJson({ ...document, remotes: undefined })).toBe(false);
  });

  test("--out writes the file; a bad argument is refused on stderr with the usage exit code, nothing written", () => {
    const dir = tempDir("ckg-server-json-");
    try {
      const out = join(dir, "server.json");
      expect(run("https://ckg.example.com", "--out", out).exitCode).toBe(0);
      expect(JSON.parse(readFileSync(out, "utf8")).name).toBe("com.example.ckg/ckg");
      for (const args of [[], ["ftp://ckg.example.com"], ["not a url"], ["https://a.example", "https://b.example"], ["--colour", "red"]]) {
        const refused = run(...args, "--out", join(dir, "refused.json"));
        expect(refused.exitCode, args.join(" ")).toBe(EXIT.usage);
        expect(refused.stderr.toString()).toMatch(/^server-json: .+\nusage: /);
        expect(refused.stderr.toString()).not.toContain("    at ");
      }
      expect(() => readFileSync(join(dir, "refused.json"))).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

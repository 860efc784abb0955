/**
 * `npm run server-json -- <public base URL> [--out server.json]`: the MCP Registry's server.json
 * for a ckg deployed at that URL (mcp/directory.ts makes it: the name from the URL's host in
 * reverse-DNS form, the version this build reports over MCP, the Streamable HTTP remote at
 * `<url>/mcp`), on stdout or written to a file (beside it first, then renamed into place). The
 * registry's publisher (`mcp-publisher publish`) takes the file; it verifies the name's namespace
 * against the host, so the URL must be the one the server is reached at.
 *
 * @example
 *   npm run server-json -- https://ckg.example.com --out server.json
 */
import { renameSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { serverJson } from "../src/mcp/directory.ts";
import { EXIT } from "../src/exit-codes.ts";

const USAGE = "usage: npm run server-json -- <public base URL, e.g. https://ckg.example.com> [--out server.json]";

function fail(message: string): never {
  process.stderr.write(`server-json: ${message}\n${USAGE}\n`);
  process.exit(EXIT.usage);
}

let parsed: ReturnType<typeof parseArgs<{ options: { out: { type: "string" } }; allowPositionals: true }>>;
try {
  parsed = parseArgs({ args: process.argv.slice(2), options: { out: { type: "string" } }, allowPositionals: true });
} catch (error) {
  fail((error as Error).message);
}
const [base, ...extra] = parsed.positionals;
if (!base || extra.length > 0) fail(base ? `one base URL, not ${parsed.positionals.length}` : "the public base URL is missing");
let url: URL;
try {
  url = new URL(base);
} catch {
  fail(`"${base}" is not a URL`);
}
if (url.protocol !== "https:" && url.protocol !== "http:") fail(`"${base}" is not an http(s) URL`);
if (url.search || url.hash) fail(`"${base}" has a query or fragment: give the base URL the server is reached at`);

const text = `${JSON.stringify(serverJson(base), null, 2)}\n`;
const out = parsed.values.out;
if (!out) process.stdout.write(text);
else {
  const partial = `${out}.partial-${process.pid}`;
  writeFileSync(partial, text);
  renameSync(partial, out);
  process.stderr.write(`wrote ${out}\n`);
}

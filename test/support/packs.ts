/**
 * Helpers of the signed-snapshot tests: `ckg` as a child process, a data directory's whole content
 * as a list (paths, sizes, SHA-256) to show a refusal changed nothing, and packs rewritten the way
 * an attacker, a broken transfer or a newer ckg would write them (tar-stream, the library ckg reads
 * them with, so each case is a well-formed tar that differs only where the case says).
 */
import { createHash } from "node:crypto";
import { lstatSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Header, extract as tarExtract, pack as tarPack } from "tar-stream";
import { selfCommand } from "../../src/runtime.ts";

export interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** Runs `ckg <args>` (from source) to its end. */
export function ckg(env: Record<string, string>, ...args: string[]): Run {
  const result = Bun.spawnSync(selfCommand(...args), { env: { ...process.env, CKG_LOG_LEVEL: "warn", ...env } });
  return { code: result.exitCode, out: result.stdout.toString(), err: result.stderr.toString() };
}

/** Runs `ckg <args>` without blocking this process (a test that serves the pack over HTTP must keep answering meanwhile). */
export async function ckgAsync(env: Record<string, string>, ...args: string[]): Promise<Run> {
  const proc = Bun.spawn(selfCommand(...args), { env: { ...process.env, CKG_LOG_LEVEL: "warn", ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out, err };
}

/** Every folder, file and link under `root` with its size and SHA-256: equal lists, an unchanged directory. A missing root lists as nothing. */
export function treeDigest(root: string, under = ""): string[] {
  let names: string[];
  try {
    names = readdirSync(join(root, under)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return under ? [] : ["(absent)"];
    throw error;
  }
  const lines: string[] = under ? [] : ["(present)"];
  for (const name of names) {
    const path = under ? `${under}/${name}` : name;
    const stat = lstatSync(join(root, path));
    if (stat.isDirectory()) lines.push(`${path}/ ${(stat.mode & 0o777).toString(8)}`, ...treeDigest(root, path));
    else if (stat.isSymbolicLink()) lines.push(`${path} -> ${readlinkSync(join(root, path))}`);
    else lines.push(`${path} ${stat.size} ${(stat.mode & 0o777).toString(8)} ${createHash("sha256").update(readFileSync(join(root, path))).digest("hex")}`);
  }
  return lines;
}

export interface Entry {
  header: Header;
  data: Buffer;
}

/** A pack's entries, read whole (test packs are small). */
export async function readEntries(file: string): Promise<Entry[]> {
  const extract = tarExtract();
  const entries: Entry[] = [];
  const done = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(Buffer.from(chunk as Uint8Array));
      entries.push({ header: entry.header, data: Buffer.concat(chunks) });
    }
  })();
  extract.end(readFileSync(file));
  await done;
  return entries;
}

/** Writes entries as a tar file (sizes taken from the data, except for links). */
export async function writeEntries(file: string, entries: Entry[]): Promise<void> {
  const pack = tarPack();
  const chunks: Buffer[] = [];
  const read = (async () => {
    for await (const chunk of pack) chunks.push(Buffer.from(chunk as Uint8Array));
  })();
  for (const { header, data } of entries) {
    const linked = header.type === "symlink" || header.type === "link";
    await new Promise<void>((resolve, reject) => {
      const done = (error?: Error | null) => (error ? reject(error) : resolve());
      if (linked) pack.entry({ ...header, size: 0 }, done);
      else pack.entry({ ...header, size: data.length }, data, done);
    });
  }
  pack.finalize();
  await read;
  writeFileSync(file, Buffer.concat(chunks));
}

/** The pack manifest of a pack's entries, parsed. */
export function packManifestOf(entries: Entry[]): { format: number; snapshot: { id: string; format: number }; files: { path: string; size: number; sha256: string }[] } {
  return JSON.parse(entries[0]!.data.toString("utf8"));
}

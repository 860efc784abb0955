/**
 * @module ingest/raw-store
 * Provider responses saved to disk, one JSON file per request: `<root>/<provider>/<key>.json`.
 * A fetch writes here and a parse reads only from here, so `ckg import <dir>` runs the same parsers
 * on responses carried from another machine, and a killed ingest resumes by skipping the requests
 * whose answers are already saved. Files are written whole (temporary name, then rename).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import type { ProviderId } from "./records.ts";

/** Request keys are paths of safe segments; anything else is percent-encoded. */
function fileOf(root: string, provider: ProviderId, key: string): string {
  const safe = key
    .split("/")
    .map((segment) => encodeURIComponent(segment).replace(/^\.+/, (dots) => "%2E".repeat(dots.length)))
    .join("/");
  return join(root, provider, `${safe}.json`);
}

export class RawStore {
  constructor(readonly root: string) {}

  has(provider: ProviderId, key: string): boolean {
    return existsSync(fileOf(this.root, provider, key));
  }

  save(provider: ProviderId, key: string, value: unknown): void {
    const file = fileOf(this.root, provider, key);
    mkdirSync(dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.part`;
    writeFileSync(temporary, JSON.stringify(value));
    renameSync(temporary, file);
  }

  /** The saved answer, or undefined when there is none; a file that is not JSON throws. */
  load(provider: ProviderId, key: string): unknown {
    const file = fileOf(this.root, provider, key);
    if (!existsSync(file)) return undefined;
    return JSON.parse(readFileSync(file, "utf8"));
  }

  /** Keys saved under a prefix (`protocol/` lists every saved protocol), sorted. */
  keys(provider: ProviderId, prefix = ""): string[] {
    const base = join(this.root, provider);
    if (!existsSync(base)) return [];
    const out: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith(".json")) {
          const k = relative(base, path).slice(0, -5).split(sep).map(decodeURIComponent).join("/");
          if (k.startsWith(prefix)) out.push(k);
        }
      }
    };
    walk(base);
    return out.sort();
  }

  /** Providers with at least one saved answer. */
  providers(): string[] {
    if (!existsSync(this.root)) return [];
    return readdirSync(this.root).filter((name) => statSync(join(this.root, name)).isDirectory());
  }
}

/**
 * @module runtime
 * Facts about how ckg is running: from source (`bun src/main.ts`) or as the single executable,
 * and how to start another copy of itself (graph processes, the first-start build).
 */
import { edenGC } from "bun:jsc";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** True inside the executable made by `npm run build` (its modules live in Bun's virtual file system). */
const IS_COMPILED = import.meta.path.startsWith("/$bunfs/") || import.meta.path.includes("~BUN");

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));

/**
 * The vector index's scan worker. Named from here, beside main.ts: the executable keeps entrypoints
 * at their paths relative to src/ and resolves this module's URL as if it sat where main.ts does.
 */
export const VECTOR_WORKER_URL = new URL("./search/vector-worker.ts", import.meta.url).href;
/** The k-means helper of a search index build (search/ivf.ts), named from here for the same reason. */
export const NEAREST_WORKER_URL = new URL("./search/nearest-worker.ts", import.meta.url).href;
/** The webhook sender's thread (push/sender.ts), named from here for the same reason. */
export const SENDER_WORKER_URL = new URL("./push/sender-worker.ts", import.meta.url).href;

/**
 * The argv that runs `ckg <args>` in a child process. CKG_SELF_WRAPPER, when set, is put in front:
 * an executable for another architecture run under qemu-user without binfmt_misc cannot exec itself
 * (exit 127), so the arm64 release check sets it to "qemu-aarch64-static -L /usr/aarch64-linux-gnu".
 */
export function selfCommand(...args: string[]): string[] {
  const wrapper = (process.env.CKG_SELF_WRAPPER ?? "").split(/\s+/).filter(Boolean);
  return IS_COMPILED ? [...wrapper, process.execPath, ...args] : [...wrapper, process.execPath, MAIN, ...args];
}

/**
 * Where the executable unpacks its native libraries (DuckDB): `<data_dir>/runtime` unless
 * CKG_NATIVE_DIR says otherwise. Set before anything loads DuckDB; child processes inherit it.
 */
export function useNativeDir(dataDirRoot: string): void {
  if (!process.env.CKG_NATIVE_DIR) process.env.CKG_NATIVE_DIR = join(resolve(dataDirRoot), "runtime");
}

/** A native file embedded in the executable, and what it must be once unpacked (measured at build time). */
export interface EmbeddedNative {
  /** Its path in the executable's virtual file system. */
  embedded: string;
  name: string;
  zstd: boolean;
  bytes: number;
  sha256: string;
}

/**
 * Unpacks native files the executable carries into `<native dir>/<folder>/` (see useNativeDir) and
 * returns that folder: a library must be a real file for the system's loader. A file already there
 * with its unpacked size is kept (it was renamed into place whole); one unpacked now is checked
 * against its SHA-256 first. Each is written beside and renamed, as another ckg process may be
 * loading the same folder.
 */
export function unpackNatives(folder: string, files: EmbeddedNative[]): string {
  const dir = join(process.env.CKG_NATIVE_DIR || join(tmpdir(), "ckg-native"), folder);
  mkdirSync(dir, { recursive: true });
  for (const file of files) {
    const target = join(dir, file.name);
    if (existsSync(target) && statSync(target).size === file.bytes) continue;
    const packed = readFileSync(file.embedded); // from the virtual file system: copyFile cannot read it
    const bytes = file.zstd ? Bun.zstdDecompressSync(packed) : packed;
    const sha256 = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
    if (sha256 !== file.sha256) throw new Error(`the executable's ${file.name} unpacks to SHA-256 ${sha256}, not the ${file.sha256} it was built with`);
    const temp = `${target}.${process.pid}.tmp`;
    writeFileSync(temp, bytes);
    renameSync(temp, target);
  }
  return dir;
}

/** True while a process with this id exists (signal 0 checks without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A counter for long synchronous passes that make short-lived garbage (feature bags, row text):
 * every `every` calls it runs an eden collection (bun:jsc edenGC), which frees young objects
 * without tracing the old heap. A build keeps the whole world alive (2 GB at full scale), and
 * JavaScriptCore lets its heap grow in proportion to what is live before it collects on its own:
 * uncollected, a pass over 600,000 documents pushed RSS from 2.2 to 5.5 GB. A full collection of
 * that heap takes about 0.9 s. At full scale, one pass making every document: an eden collection
 * each 20,000 documents kept the RSS where it started and took 12.0 s; a full collection each
 * 256 MB of growth (8 of them) 19.5 s and 0.1 GB more.
 * Returns true when it collected (an async caller then turns the event loop: turnEventLoop).
 */
export function collectEvery(every: number): () => boolean {
  let calls = 0;
  return () => {
    if (++calls % every !== 0) return false;
    edenGC();
    return true;
  };
}

/**
 * Lets the event loop turn once: native values (DuckDB's list values) are freed by finalizers that
 * run there, so a synchronous loop making millions of them holds them all until it yields.
 */
export const turnEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** How long a sliced computation keeps the main thread before letting the event loop turn. */
const SLICE_MS = 20;

/**
 * Time slices for a long computation on the main thread while other work waits on that thread: a
 * build's search index runs beside the series, whose DuckDB statements are issued from here (and
 * run on DuckDB's own threads). At full scale the index held the thread for 69 of its 72 s, once
 * for 39 s on end, and the series' statements waited until it was done. `forEach` runs a loop's
 * body over a range in chunks and lets the event loop turn between them once a slice has run
 * SLICE_MS; the body stays a plain synchronous function, which the JIT optimizes as before.
 */
export class TimeSlices {
  private started = performance.now();

  constructor(private readonly ms = SLICE_MS) {}

  /** Lets the event loop turn if this slice has run its time. */
  async yieldIfDue(): Promise<void> {
    if (performance.now() - this.started < this.ms) return;
    await turnEventLoop();
    this.started = performance.now();
  }

  /** `work(from, to)` over 0..count, `chunk` at a time, yielding between chunks when due. */
  async forEach(count: number, chunk: number, work: (from: number, to: number) => void): Promise<void> {
    for (let from = 0; from < count; from += chunk) {
      work(from, Math.min(count, from + chunk));
      await this.yieldIfDue();
    }
  }
}

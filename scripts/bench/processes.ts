/**
 * A server and every process under it, read from /proc: RSS and open descriptors. Shared by the
 * benchmarks that print the memory of all of a server's processes (soak.ts, explore.ts).
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export interface ProcessSample {
  pid: number;
  name: string;
  rssMb: number;
  /** Open descriptors that are not sockets (files, pipes), by target. */
  files: string[];
  /** Open sockets: client connections come and go, so they are counted apart. */
  sockets: number;
}

function descriptors(pid: number): { files: string[]; sockets: number } {
  let sockets = 0;
  const files: string[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.startsWith("socket:")) sockets++;
      else files.push(target.replace(/\[\d+\]$/, "")); // a pipe's inode aside: the same kind of file
    } catch {} // closed meanwhile
  }
  return { files, sockets };
}

/** `root` and its descendants (processes that end while being read are left out). */
export function processTree(root: number): ProcessSample[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {}
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, parent] of parents) if (parent === tree[i]) tree.push(pid);
  return tree.flatMap((pid) => {
    try {
      const rssMb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
      const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      return [{ pid, name: args.find((a) => !a.startsWith("/") && !a.startsWith("-")) ?? args[0]!, rssMb, ...descriptors(pid) }];
    } catch {
      return [];
    }
  });
}

/** What a process's resident memory is made of, from /proc/<pid>/smaps (MB). */
export interface MemoryParts {
  /**
   * Anonymous mappings of 1 GiB or more: a WebAssembly memory reserves its whole range (a graph
   * process: Oxigraph's heap), and so does JavaScriptCore for parts of its own heap.
   */
  bigAnon: number;
  /** Other anonymous memory: the JavaScript heap, malloc (DuckDB's buffers, native indexes), stacks. */
  anon: number;
  /** Mapped files, by file name (the search vectors, DuckDB's database, libraries). */
  files: Map<string, number>;
}

export function memoryParts(pid: number): MemoryParts {
  const parts: MemoryParts = { bigAnon: 0, anon: 0, files: new Map() };
  let size = 0;
  let path = "";
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (header) {
      size = Number.parseInt(header[2]!, 16) - Number.parseInt(header[1]!, 16);
      path = header[3]!;
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (!rss) continue;
    const mb = Number(rss[1]) / 1024;
    if (path.startsWith("/")) parts.files.set(path.split("/").at(-1)!, (parts.files.get(path.split("/").at(-1)!) ?? 0) + mb);
    else if (size >= 2 ** 30 && path === "") parts.bigAnon += mb;
    else parts.anon += mb;
  }
  return parts;
}

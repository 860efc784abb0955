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

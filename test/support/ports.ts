/**
 * Ports for the external engines tests start. Our own servers and anvil listen on port 0 and say
 * which port they got; PostgreSQL and Virtuoso must be told a port on their command line and cannot
 * take 0. For them a port comes from the OS (a socket bound to port 0, read back, released), and as
 * another process may bind it before the engine does, the start is tried again on fresh ports when
 * it collided. A collision is never silent: `listensOn` checks that the engine itself holds its
 * ports, not some other process that answered in its place.
 */
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { createServer } from "node:net";

/** A port the OS gives out now on 127.0.0.1, released at once. */
export function portFromOs(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The start failed because a port it was given was taken meanwhile: worth trying on fresh ports. */
export class PortCollision extends Error {}

const ATTEMPTS = 5;

/** Starts an engine on `count` fresh ports from the OS, again on new ones after a PortCollision. */
export async function onFreshPorts<T>(engine: string, count: number, start: (ports: number[]) => Promise<T>): Promise<T> {
  const collisions: string[] = [];
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) ports.push(await portFromOs());
    try {
      return await start(ports);
    } catch (error) {
      if (!(error instanceof PortCollision)) throw error;
      collisions.push(`ports ${ports.join(", ")}: ${error.message}`);
    }
  }
  throw new Error(`${engine} could not start on a free port in ${ATTEMPTS} tries:\n${collisions.join("\n")}`);
}

/** Whether process `pid` itself listens on TCP `port` (its socket is among the process's open files). */
export function listensOn(pid: number, port: number): boolean {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // no IPv6 here
      throw error;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is ADDR:PORT in hex; state 0A is LISTEN; the inode is the tenth field.
      if (fields[1]?.endsWith(`:${hex}`) && fields[3] === "0A") inodes.add(fields[9]!);
    }
  }
  if (inodes.size === 0) return false;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // closed while we looked
      throw error;
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode && inodes.has(inode)) return true;
  }
  return false;
}

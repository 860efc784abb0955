/**
 * What a Bun executable carries besides the runtime: the files of its module graph, read from the
 * payload Bun appends (its `.bun` section on Linux, `__BUN` segment on macOS), which ends with a
 * trailer. Layout as Bun 1.4 writes it (StandaloneModuleGraph): the trailer is preceded by the
 * payload's byte count (u64) and the offset and length (u32) of the module table; each 52-byte table
 * entry starts with the offsets and lengths (u32) of the module's name and contents in the payload.
 */

const TRAILER = "\n---- Bun! ----\n";
const ENTRY_BYTES = 52;

export interface EmbeddedModule {
  name: string;
  bytes: number;
}

export function embeddedModules(file: Uint8Array): { payloadBytes: number; modules: EmbeddedModule[] } {
  const buffer = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  const trailer = buffer.lastIndexOf(TRAILER);
  if (trailer < 32) throw new Error("no Bun payload trailer: not an executable made by bun build --compile");
  const payloadBytes = Number(buffer.readBigUInt64LE(trailer - 32));
  const tableOffset = buffer.readUInt32LE(trailer - 24);
  const tableBytes = buffer.readUInt32LE(trailer - 20);
  const base = trailer - 32 - payloadBytes;
  const modules: EmbeddedModule[] = [];
  for (let entry = base + tableOffset; entry < base + tableOffset + tableBytes; entry += ENTRY_BYTES) {
    const nameAt = base + buffer.readUInt32LE(entry);
    const name = buffer.toString("utf8", nameAt, nameAt + buffer.readUInt32LE(entry + 4));
    modules.push({ name, bytes: buffer.readUInt32LE(entry + 12) });
  }
  return { payloadBytes, modules };
}

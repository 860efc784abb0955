/**
 * Just enough of Apple's Mach-O format to build and check the macOS executables on Linux: take one
 * architecture's slice out of a universal file (DuckDB and usearch ship one file for both Macs), read
 * an executable's header, and verify its code signature's page hashes (Apple Silicon refuses to run
 * a binary whose ad-hoc signature does not match its pages).
 */

const FAT_MAGIC = 0xcafebabe; // big-endian universal header
const MH_MAGIC_64 = 0xfeedfacf; // little-endian 64-bit image (both Mac architectures)
export const MH_EXECUTE = 2;
const LC_CODE_SIGNATURE = 0x1d;
const CODE_DIRECTORY = 0xfade0c02;
const HASH_SHA256 = 2;

/** A universal file's slice for `cpu`; a file that is not universal is returned as it is. */
export function sliceFor(bytes: Uint8Array, cpu: number): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0) !== FAT_MAGIC) return bytes;
  for (let i = 0; i < view.getUint32(4); i++) {
    const entry = 8 + 20 * i; // cputype, cpusubtype, offset, size, align (fat_arch, big-endian)
    if (view.getInt32(entry) !== cpu) continue;
    const offset = view.getUint32(entry + 8);
    return bytes.subarray(offset, offset + view.getUint32(entry + 12));
  }
  throw new Error(`the universal file has no slice for cputype 0x${cpu.toString(16)}`);
}

export interface MachHeader {
  cputype: number;
  filetype: number;
  /** Load commands: their type and where they start in the file. */
  commands: { cmd: number; offset: number }[];
}

export function readMachHeader(bytes: Uint8Array): MachHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint32(0, true);
  if (magic !== MH_MAGIC_64) throw new Error(`not a 64-bit Mach-O image (magic 0x${magic.toString(16)})`);
  const commands: MachHeader["commands"] = [];
  let offset = 32; // mach_header_64
  for (let i = 0; i < view.getUint32(16, true); i++) {
    commands.push({ cmd: view.getUint32(offset, true), offset });
    offset += view.getUint32(offset + 4, true);
  }
  return { cputype: view.getInt32(4, true), filetype: view.getUint32(12, true), commands };
}

export interface SignatureCheck {
  pages: number;
  badPages: number;
  /** The signed range ends where the signature starts: nothing after the code went unsigned. */
  coversCode: boolean;
}

/** Recomputes the SHA-256 page hashes of the code signature's CodeDirectory; undefined when unsigned. */
export function checkSignature(bytes: Uint8Array, header: MachHeader): SignatureCheck | undefined {
  const command = header.commands.find((c) => c.cmd === LC_CODE_SIGNATURE);
  if (!command) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const signature = view.getUint32(command.offset + 8, true);
  // The signature blobs are big-endian: a SuperBlob (magic, length, count, then type/offset pairs).
  for (let i = 0; i < view.getUint32(signature + 8); i++) {
    const blob = signature + view.getUint32(signature + 16 + 8 * i);
    if (view.getUint32(blob) !== CODE_DIRECTORY || view.getUint8(blob + 37) !== HASH_SHA256) continue;
    const hashOffset = view.getUint32(blob + 16);
    const codeSlots = view.getUint32(blob + 28);
    const codeLimit = view.getUint32(blob + 32);
    const hashSize = view.getUint8(blob + 36);
    const pageSize = 2 ** view.getUint8(blob + 39);
    let badPages = 0;
    for (let page = 0; page < codeSlots; page++) {
      const start = page * pageSize;
      const digest = new Bun.CryptoHasher("sha256").update(bytes.subarray(start, Math.min(start + pageSize, codeLimit))).digest();
      const stored = bytes.subarray(blob + hashOffset + page * hashSize, blob + hashOffset + (page + 1) * hashSize);
      if (!digest.subarray(0, hashSize).equals(stored)) badPages++;
    }
    return { pages: codeSlots, badPages, coversCode: codeLimit === signature };
  }
  throw new Error("the code signature has no SHA-256 CodeDirectory");
}

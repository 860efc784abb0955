/**
 * @module cli/snapshot
 * `ckg snapshot pack|verify|install|pull`: a snapshot as one signed file that travels offline
 * (snapshot/pack.ts), checked against the trusted keys before anything of it is used
 * (snapshot/unpack.ts), installed and published as a build publishes (snapshot/install.ts), or
 * pulled from a URL the same way (snapshot/pull.ts).
 */
import { COMMAND_SETTINGS } from "../config/commands.ts";
import type { Config } from "../config/config.ts";
import { type Command, UsageError } from "./command.ts";

const USAGE = "pack <file> [--snapshot <id>] | verify <file> | install <file> | pull <url>";

export const snapshotCommand: Command = {
  name: "snapshot",
  summary:
    "Pack a snapshot into one file signed with Ed25519 (pack), check a pack against the trusted keys (verify), " +
    "or check and install it into the data directory as the live snapshot, from a file (install) or an http(s) URL (pull).",
  usage: USAGE,
  settings: COMMAND_SETTINGS.snapshot,
  options: {
    snapshot: { type: "string", help: "pack: the snapshot to pack (default: the live one)" },
  },
  async run({ config, positionals, options }) {
    const [action, target, ...rest] = positionals;
    if (!action || !target || rest.length > 0) throw new UsageError(`ckg snapshot ${USAGE}`);
    if (action === "pack") return pack(config, target, typeof options.snapshot === "string" ? options.snapshot : undefined);
    if (options.snapshot !== undefined) throw new UsageError("--snapshot is for 'ckg snapshot pack' (a pack holds one snapshot)");
    if (action === "verify") return verify(config, target);
    if (action === "install" || action === "pull") return install(config, action, target);
    throw new UsageError(`unknown action '${action}': ckg snapshot ${USAGE}`);
  },
};

async function pack(config: Config, out: string, requested: string | undefined): Promise<void> {
  const [{ existsSync }, { SNAPSHOT_ID, dataDir, liveSnapshotId, snapshotPath }, { readSigningKey }, { writePack }] = await Promise.all([
    import("node:fs"),
    import("../store/data-dir.ts"),
    import("../snapshot/keys.ts"),
    import("../snapshot/pack.ts"),
  ]);
  if (!config.snapshot_signing_key) throw new UsageError("packing signs the snapshot: give the private key file with --snapshot-signing-key (or CKG_SNAPSHOT_SIGNING_KEY); 'ckg keys generate' makes one");
  if (existsSync(out)) throw new UsageError(`${out} exists; a pack is written to a new file`);
  const key = readSigningKey(config.snapshot_signing_key);
  const dir = dataDir(config.data_dir);
  const id = requested ?? liveSnapshotId(dir);
  if (!SNAPSHOT_ID.test(id) || !existsSync(snapshotPath(dir, id))) throw new UsageError(`${dir.snapshots} holds no snapshot '${id}'`);
  const packed = await writePack(snapshotPath(dir, id), id, out, key);
  console.log(`packed snapshot ${id}: ${packed.manifest.files.length} files, ${megabytes(packed.bytes)}, signed by ${packed.publicKey}\n${packed.file}`);
}

async function verify(config: Config, file: string): Promise<void> {
  const [{ createReadStream }, { verifyPack }] = await Promise.all([import("node:fs"), import("../snapshot/unpack.ts")]);
  const trusted = await trustedKeys(config);
  await mustExist(file);
  const { manifest, signer } = await verifyPack(createReadStream(file, { highWaterMark: 1 << 20 }), file, trusted);
  const bytes = manifest.files.reduce((sum, f) => sum + f.size, 0);
  console.log(
    `${file}: snapshot ${manifest.snapshot.id} (as of ${manifest.snapshot.as_of}${manifest.snapshot.synthetic ? ", includes SYNTHETIC demo data" : ""}), ` +
      `${manifest.files.length} files, ${megabytes(bytes)}, packed by ckg ${manifest.ckg_version}; signed by ${signer} (trusted); every file matches`,
  );
}

async function install(config: Config, action: "install" | "pull", source: string): Promise<void> {
  const [{ createReadStream }, { dataDir }, { installPack }, { openPackUrl }] = await Promise.all([
    import("node:fs"),
    import("../store/data-dir.ts"),
    import("../snapshot/install.ts"),
    import("../snapshot/pull.ts"),
  ]);
  const trusted = await trustedKeys(config);
  if (action === "pull" && !/^https?:\/\/[^/]/i.test(source)) throw new UsageError(`'${source}' is not an http:// or https:// URL`);
  if (action === "install") await mustExist(source);
  const stream = action === "pull" ? await openPackUrl(source) : createReadStream(source, { highWaterMark: 1 << 20 });
  const dir = dataDir(config.data_dir);
  const { pack, path, outcome } = await installPack(stream, source, dir, trusted).catch((error: Error) => {
    if (error.name === "SignatureError") error.message += `; nothing was changed in ${dir.root}`;
    throw error;
  });
  const id = pack.manifest.snapshot.id;
  console.log(
    outcome === "installed"
      ? `installed snapshot ${id} (${pack.manifest.files.length} files, signed by ${pack.signer}); it is the live snapshot now\n${path}`
      : `snapshot ${id} was already installed with the same files; it is the live snapshot\n${path}`,
  );
}

/** The trusted keys; none is a usage error saying how to trust one (unsigned or unknown-signed data is never taken). */
async function trustedKeys(config: Config): Promise<string[]> {
  const { parseTrustedKeys } = await import("../snapshot/keys.ts");
  const keys = parseTrustedKeys(config.snapshot_trusted_keys);
  if (keys.length > 0) return keys;
  throw new UsageError(
    "no trusted keys: a snapshot is checked against the public keys you trust, and none is set. Set --snapshot-trusted-keys " +
      "(or CKG_SNAPSHOT_TRUSTED_KEYS, or snapshot_trusted_keys in the config file) to the public key of whoever packed it " +
      "(ckg-ed25519:..., which 'ckg keys generate' printed and 'ckg keys public <their key file>' prints again); several are separated by commas.",
  );
}

async function mustExist(file: string): Promise<void> {
  const { statSync } = await import("node:fs");
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile()) throw new UsageError(`${file} is not a file`);
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toLocaleString("en", { maximumFractionDigits: 1 })} MB`;
}

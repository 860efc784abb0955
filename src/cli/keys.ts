/**
 * @module cli/keys
 * `ckg keys generate [--out DIR]`: an Ed25519 key pair to sign snapshots with (snapshot/keys.ts):
 * the private key (PKCS#8 PEM, readable by its owner only) and the public key, one line that the
 * machines receiving the snapshots trust (snapshot_trusted_keys). `ckg keys public <key file>`
 * prints a private key's public key again.
 */
import { COMMAND_SETTINGS } from "../config/commands.ts";
import { type Command, UsageError } from "./command.ts";

const PRIVATE_FILE = "ckg-snapshot.key";
const PUBLIC_FILE = "ckg-snapshot.pub";

export const keys: Command = {
  name: "keys",
  summary:
    `Make an Ed25519 key pair to sign snapshots with (generate: ${PRIVATE_FILE}, readable by you only, and ${PUBLIC_FILE}, the line others trust), ` +
    "or print the public key of a private key file (public).",
  usage: "generate [--out <dir>] | public <key file>",
  settings: COMMAND_SETTINGS.keys,
  options: {
    out: { type: "string", help: `generate: the folder to write ${PRIVATE_FILE} and ${PUBLIC_FILE} into (default: the current one)` },
  },
  async run({ positionals, options }) {
    const [action, ...rest] = positionals;
    const [{ chmodSync, existsSync, mkdirSync, rmSync, writeFileSync }, { join }, { newKeyPair, publicKeyText, readSigningKey }] = await Promise.all([
      import("node:fs"),
      import("node:path"),
      import("../snapshot/keys.ts"),
    ]);
    if (action === "public" && rest.length === 1 && options.out === undefined) {
      console.log(publicKeyText(readSigningKey(rest[0]!)));
      return;
    }
    if (action !== "generate" || rest.length > 0) throw new UsageError("ckg keys generate [--out <dir>] | ckg keys public <key file>");
    const dir = typeof options.out === "string" ? options.out : ".";
    const privatePath = join(dir, PRIVATE_FILE);
    const publicPath = join(dir, PUBLIC_FILE);
    for (const path of [privatePath, publicPath]) if (existsSync(path)) throw new UsageError(`${path} exists; a key is never overwritten (move it away, or choose another --out)`);
    mkdirSync(dir, { recursive: true });
    const pair = newKeyPair();
    // 'wx': created here or not at all; the mode set again in case the umask widened it.
    writeFileSync(privatePath, pair.privatePem, { mode: 0o600, flag: "wx" });
    chmodSync(privatePath, 0o600);
    try {
      writeFileSync(publicPath, `${pair.publicKey}\n`, { flag: "wx" });
    } catch (error) {
      rmSync(privatePath, { force: true });
      throw error;
    }
    console.log(pair.publicKey);
    console.error(
      `wrote ${privatePath} (the private key: keep it secret; give it to 'ckg snapshot pack' or CKG_SNAPSHOT_SIGNING_KEY) and ${publicPath}. ` +
        "Machines that take your snapshots trust the line above: CKG_SNAPSHOT_TRUSTED_KEYS=<it>.",
    );
  },
};

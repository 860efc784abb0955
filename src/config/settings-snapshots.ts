/**
 * @module config/settings-snapshots
 * Settings of signed snapshots (a snapshot from elsewhere is installed only if a trusted key signed
 * it): the public keys whose signatures are trusted, and the private key this machine signs with.
 * Snapshot, the governance hub, has its own setting (`snapshot_hub_url`); these are about ckg's
 * snapshots.
 */
import { z } from "zod";
import { type Setting, setting } from "./setting.ts";

/** `ckg-ed25519:` and the 32 bytes of an Ed25519 public key in base64url (43 characters): what `ckg keys generate` prints. */
const PUBLIC_KEY = "ckg-ed25519:[A-Za-z0-9_-]{43}";
const KEY_LIST = new RegExp(`^\\s*${PUBLIC_KEY}\\s*(,\\s*${PUBLIC_KEY}\\s*)*$`);

export const SNAPSHOT_SIGNING_SETTINGS = {
  snapshot_trusted_keys: setting(
    "string",
    z.string().regex(KEY_LIST, "public keys as `ckg keys generate` prints them (ckg-ed25519:<43 characters>), comma-separated").optional(),
    undefined,
    "public keys (ckg-ed25519:..., comma-separated) whose signatures ckg accepts on a snapshot: `ckg snapshot verify|install|pull` need one; when set, the server too serves only snapshots signed by one of them",
  ),
  snapshot_signing_key: setting(
    "string",
    z.string().min(1).optional(),
    undefined,
    "file holding the Ed25519 private key (PKCS#8 PEM, made by `ckg keys generate`) that `ckg snapshot pack` signs with, and `ckg build`, `ckg ingest` and `ckg import` sign each snapshot they publish with",
  ),
} as const satisfies Record<string, Setting>;

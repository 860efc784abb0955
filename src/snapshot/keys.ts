/**
 * @module snapshot/keys
 * Ed25519 keys of signed snapshots (node:crypto, which Bun implements): a private key is a PKCS#8
 * PEM file (what `openssl genpkey -algorithm ed25519` writes too), a public key one short line,
 * `ckg-ed25519:` and its 32 bytes in base64url, short enough for a setting or a chat message.
 * Signing and checking a signature happen here and nowhere else.
 *
 * @example
 *   const pair = newKeyPair();            // { privatePem, publicKey: "ckg-ed25519:..." }
 *   const sig = signBytes(bytes, readSigningKey("ckg-snapshot.key"));
 *   const signer = trustedSigner(bytes, sig, parseTrustedKeys(config.snapshot_trusted_keys));
 */
import { type KeyObject, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto";
import { readFileSync } from "node:fs";

const PUBLIC_KEY_PREFIX = "ckg-ed25519:";

/** A signature over some exact bytes, with the public key that made it. */
export interface Signature {
  format: 1;
  algorithm: "ed25519";
  public_key: string;
  /** base64 of the 64-byte Ed25519 signature. */
  signature: string;
}

/** A snapshot (or pack) whose signature is missing, wrong or not by a trusted key, or whose files differ from what was signed. */
export class SignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SignatureError";
  }
}

export function newKeyPair(): { privatePem: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return { privatePem: privateKey.export({ format: "pem", type: "pkcs8" }).toString(), publicKey: publicKeyText(publicKey) };
}

/** The short text of a public key (or of a private key's public half). */
export function publicKeyText(key: KeyObject): string {
  const publicKey = key.type === "private" ? createPublicKey(key) : key;
  const jwk = publicKey.export({ format: "jwk" });
  return `${PUBLIC_KEY_PREFIX}${jwk.x}`;
}

/** A public key from its text; an error naming what is wrong with it. */
function parsePublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  const x = trimmed.startsWith(PUBLIC_KEY_PREFIX) ? trimmed.slice(PUBLIC_KEY_PREFIX.length) : "";
  if (!/^[A-Za-z0-9_-]{43}$/.test(x) || Buffer.from(x, "base64url").length !== 32) {
    throw new SignatureError(`'${trimmed.slice(0, 80)}' is not a ckg public key (ckg-ed25519: and 43 base64url characters, as 'ckg keys generate' prints)`);
  }
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
}

/** The trusted keys of a setting's comma list; none when it is unset or empty. */
export function parseTrustedKeys(list: string | undefined): string[] {
  const keys = (list ?? "").split(",").map((k) => k.trim()).filter((k) => k.length > 0);
  for (const key of keys) parsePublicKey(key); // each one well formed, or said so now
  return [...new Set(keys)];
}

/** The private key of a signing key file; an error naming the file and what is wrong. */
export function readSigningKey(path: string): KeyObject {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`cannot read the signing key ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(text);
  } catch {
    throw new Error(`${path} holds no private key (expected a PKCS#8 PEM Ed25519 key, as 'ckg keys generate' writes)`);
  }
  if (key.asymmetricKeyType !== "ed25519") throw new Error(`${path} holds a ${key.asymmetricKeyType} key; snapshots are signed with Ed25519 ('ckg keys generate')`);
  return key;
}

/** Signs these exact bytes. */
export function signBytes(bytes: Uint8Array, privateKey: KeyObject): Signature {
  return { format: 1, algorithm: "ed25519", public_key: publicKeyText(privateKey), signature: sign(null, bytes, privateKey).toString("base64") };
}

/**
 * The trusted key that signed these exact bytes; SignatureError when the signing key is not one of
 * `trusted` or the signature does not match the bytes. The key is looked up first, so a signature by
 * an unknown key says so rather than "bad signature".
 */
export function trustedSigner(bytes: Uint8Array, signature: Signature, trusted: readonly string[]): string {
  if (!trusted.includes(signature.public_key)) {
    throw new SignatureError(`it is signed by ${signature.public_key}, which is not a trusted key (snapshot_trusted_keys: ${trusted.join(", ")})`);
  }
  const raw = Buffer.from(signature.signature, "base64");
  if (raw.length !== 64 || !verify(null, bytes, parsePublicKey(signature.public_key), raw)) {
    throw new SignatureError(`its signature does not match what it signs (signed by ${signature.public_key}): it was changed after signing`);
  }
  return signature.public_key;
}

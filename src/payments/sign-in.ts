/**
 * @module payments/sign-in
 * x402's `sign-in-with-x` extension (CAIP-122: SIWE on EVM, SIWS on Solana): with
 * `siwx_access_seconds` set, a wallet that paid for a resource may use it again for that long by
 * signing a message instead of paying. Every 402 then declares a fresh message to sign (nonce,
 * issuedAt, the resource's URI under `base_url`, the chains of its accepts); a request sends it
 * signed in the SIGN-IN-WITH-X header. The message's domain and URI are checked against
 * `base_url`, never the Host header; the URI's path must be the resource's; it must be at most 5
 * minutes old and signed for a chain the server accepts; the signature must be the wallet's; and
 * its nonce is accepted once (across replicas, in the state store). A payment settled over HTTP
 * records its payer for its resource: the path the server answered (never the resource a client's
 * payload names). Over MCP there is no sign-in, so nothing is recorded.
 */
import {
  SIGN_IN_WITH_X,
  createSIWxResourceServerExtension,
  declareSIWxExtension,
  type SIWxPayload,
  parseSIWxHeader,
  validateSIWxMessage,
  verifySIWxSignature,
} from "@x402/extensions/sign-in-with-x";
import type { PaymentRequirements } from "@x402/core/types";
import type { PublicClient } from "viem";
import type { StateStore } from "../store/state.ts";
import { isoSeconds } from "../time.ts";
import { walletKey } from "./rails.ts";

/** How old a signed message may be (the library's default check, and about how long a nonce is remembered). */
const MESSAGE_MAX_AGE_MS = 5 * 60_000;
/** How far apart the clocks of replicas may be (docs/operations.md asks for NTP). */
const CLOCK_SKEW_MS = 30_000;

export type SignInOutcome = { granted: true; payer: string } | { granted: false; reason: string };

/** What a resource paid for over HTTP is known by: its path (its query is the request's, not the resource's). */
function resourceKey(resourceUrl: string): string {
  return new URL(resourceUrl).pathname;
}

export class SignInAccess {
  private readonly origin: URL;
  private readonly declaration = declareSIWxExtension({
    statement: "Sign in to use a resource your wallet paid for",
    expirationSeconds: MESSAGE_MAX_AGE_MS / 1000,
  })[SIGN_IN_WITH_X]!;
  private readonly extension;

  constructor(
    private readonly state: StateStore,
    baseUrl: string,
    /** How long a payment grants access by signing in. */
    private readonly windowSeconds: number,
    /** The chains of the accepts (CAIP-2): a message signed for another is refused. */
    private readonly networks: readonly string[],
    /** Verifies smart-wallet (EIP-1271/6492) signatures on chain when an EVM RPC is configured; EOAs need none. */
    private readonly chain?: PublicClient,
  ) {
    this.origin = new URL(new URL(baseUrl).origin);
    // Used for its 402 enrichment only (a fresh nonce and times per challenge); its settle hook
    // would trust the resource a client's payload names, so recording is done here instead.
    this.extension = createSIWxResourceServerExtension({ origin: this.origin.origin, storage: { hasPaid: () => false, recordPayment: () => undefined } });
  }

  /** The `sign-in-with-x` entry of a 402's extensions: a new message to sign, for the chains it accepts. */
  async declare(resourceUrl: string, accepts: PaymentRequirements[]): Promise<Record<string, unknown>> {
    const info = await this.extension.enrichPaymentRequiredResponse!(this.declaration, {
      resourceInfo: { url: resourceUrl },
      requirements: accepts,
    } as never);
    return { [SIGN_IN_WITH_X]: info };
  }

  /** Whether the signed message in `header` lets its wallet use `resourceUrl` now without paying; why not, when it does not. */
  async grant(header: string, resourceUrl: string, now = Date.now()): Promise<SignInOutcome> {
    let signed: { message: SIWxPayload; payer: string };
    try {
      signed = await this.verify(header, new URL(resourceUrl).pathname, now);
    } catch (error) {
      // A refusal, never a fault: the library throws on some fields SIWE does not allow (a nonce with a dash, a bad address).
      return { granted: false, reason: (error as Error).message };
    }
    const { message, payer } = signed;
    const path = new URL(resourceUrl).pathname;
    const access = await this.state.get<{ paid_until: string }>("SELECT paid_until FROM siwx_access WHERE resource = ? AND payer = ?", [resourceKey(resourceUrl), payer]);
    const at = isoSeconds(new Date(now));
    if (!access || access.paid_until <= at) {
      return { granted: false, reason: `${message.address} has not paid for ${path} within the last ${this.windowSeconds} s` };
    }
    // Accepted once: a message seen by anyone on the way is of no use to them. Remembered for as
    // long as any replica could still find it fresh.
    const fresh = await this.state.run("INSERT INTO siwx_nonces (nonce, expires_at) VALUES (?, ?) ON CONFLICT (nonce) DO NOTHING", [
      `${payer} ${message.nonce}`,
      isoSeconds(new Date(Date.parse(message.issuedAt) + MESSAGE_MAX_AGE_MS + 2 * CLOCK_SKEW_MS)),
    ]);
    if (fresh !== 1) return { granted: false, reason: "this signed message was used already; sign the new one" };
    return { granted: true, payer };
  }

  /** The message, checked (origin, path, age, chain) and its signature verified: its wallet. Throws why not. */
  private async verify(header: string, path: string, now: number): Promise<{ message: SIWxPayload; payer: string }> {
    const message = parseSIWxHeader(header);
    // Replicas' clocks differ a little: a message another replica issued "in the future" of this one by less than that is not refused.
    const issued = Date.parse(message.issuedAt);
    const aged = issued > now && issued - now <= CLOCK_SKEW_MS ? { ...message, issuedAt: new Date(now).toISOString() } : message;
    const valid = await validateSIWxMessage(aged, this.origin, { maxAge: MESSAGE_MAX_AGE_MS });
    if (!valid.isValid) throw new Error(valid.invalidMessage);
    if (new URL(message.uri).pathname !== path) throw new Error(`the message signs in to ${message.uri}, not to ${path}`);
    if (!this.networks.includes(message.chainId)) throw new Error(`the message is signed for ${message.chainId}; this server accepts ${this.networks.join(", ")}`);
    const verified = await verifySIWxSignature(message, this.chain ? { evmVerifier: (args) => this.chain!.verifyMessage(args) } : {});
    if (!verified.isValid) throw new Error(verified.invalidMessage);
    return { message, payer: walletKey(verified.payer) };
  }

  /** A settled payment: its wallet may sign in to the resource until the window after now (never shortened by an earlier one finishing late). */
  async record(resourceUrl: string, payer: string, now = Date.now()): Promise<void> {
    await this.state.run(
      `INSERT INTO siwx_access (resource, payer, paid_until) VALUES (?, ?, ?) ON CONFLICT (resource, payer) DO UPDATE
       SET paid_until = CASE WHEN excluded.paid_until > siwx_access.paid_until THEN excluded.paid_until ELSE siwx_access.paid_until END`,
      [resourceKey(resourceUrl), walletKey(payer), isoSeconds(new Date(now + this.windowSeconds * 1000))],
    );
  }

  /** Forgets access that ran out and nonces no message can use any more. */
  async prune(now = Date.now()): Promise<void> {
    const at = isoSeconds(new Date(now));
    await this.state.run("DELETE FROM siwx_access WHERE paid_until < ?", [at]);
    await this.state.run("DELETE FROM siwx_nonces WHERE expires_at < ?", [at]);
  }
}

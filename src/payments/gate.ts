/**
 * @module payments/gate
 * x402 v2 for the paid routes. The route has validated its input (a request that would fail never
 * meets a 402); then the gate:
 *   - without a `payment-signature`: 402 with the PAYMENT-REQUIRED header and the same object as
 *     the JSON body;
 *   - with one: decodes it, matches it to this route's requirements (naming the field that differs),
 *     claims it in the ledger (a used or in-use payment is refused), verifies it with the
 *     facilitator; the handler runs; then settles. A failed settlement returns 402, never the
 *     content; a handler error releases the claim (nothing is settled); a settlement that times out
 *     is recorded as unknown and reconciled against the chain, and answered 504, never a fresh 402.
 * The protocol objects (requirements, challenge, verify, settle, header encoding) are @x402/core's.
 */
import { LRUCache } from "lru-cache";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { x402ResourceServer } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements, ResourceInfo, SettleResponse } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import type { Config } from "../config/config.ts";
import { CkgError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { StateStore } from "../store/state.ts";
import { type Facilitation, type PaymentMode, createFacilitation, paymentMode } from "./facilitator.ts";
import { PaymentLedger } from "./ledger.ts";
import { PaymentRequiredError } from "./payment-required.ts";
import { type PriceList, dollars } from "./prices.ts";
import { reconcileUnknown } from "./reconcile.ts";
import { mismatch, paymentKey } from "./matching.ts";
import { type KeptAnswer, PAYMENT_IDENTIFIER_DECLARATION, PaidAnswers, paymentIdentifier, provePayer } from "./idempotency.ts";
import { settleOnce } from "./settle.ts";

const RECONCILE_EVERY_MS = 30_000;

/** What the gate needs of an operation: its name (the price key) and a line describing the resource. */
export interface PaidOperation {
  readonly name: string;
  readonly summary: string;
}

/** What a transport hands the gate: the resource paid for, and the payment if one came with it. */
export interface PaymentOffer {
  /** The URL of the resource (the request URL over HTTP; `<base>/mcp#<tool>` over MCP). */
  resourceUrl: string;
  /** HTTP: the `payment-signature` header (base64 JSON). */
  header?: string | null;
  /** MCP: `_meta["x402/payment"]`, a PaymentPayload object (or the same base64 string). */
  payload?: unknown;
  /** The request carries the signed-in operator's console session (api/console.ts): not charged. */
  operator?: boolean;
  /** What a 402 says of the resource beyond its price: service name, tags, the bazaar extension (made when a 402 is). */
  describe?: () => ResourceDiscovery;
  /** The operation and its input: a retry under a payment identifier must ask the same. */
  requestKey?: string;
}

/** The discovery part of a 402 (operations/discovery.ts builds it from the operations table). */
export interface ResourceDiscovery {
  serviceName: string;
  tags: string[];
  extensions: Record<string, unknown>;
}

export interface PaidRequest {
  /** The answer already paid for under the payment's identifier (a retry): given again, not charged. */
  kept?: KeptAnswer;
  /** Settles, keeping `answer` under the payment's identifier; resolves to the settlement. Throws a 402 or a 504 when it cannot. */
  settle(answer: unknown): Promise<SettleResponse>;
  /** The handler failed: nothing is settled, and the payment may be used again. */
  release(): Promise<void>;
}

export class PaymentGate {
  readonly mode: PaymentMode;
  private readonly ledger: PaymentLedger;
  private readonly answers: PaidAnswers;
  private server: x402ResourceServer | undefined;
  private facilitation: Facilitation | undefined;
  private ready: Promise<void> | undefined;
  private readonly requirements = new Map<string, PaymentRequirements[]>();
  /** The plain challenge (no payment sent) by route and URL: the 402 path is the hot one under load. */
  private readonly challenges = new LRUCache<string, PaymentRequiredError>({ max: 2000 });
  private reconciler: ReturnType<typeof setInterval> | undefined;
  private startError: string | undefined;
  private started = false;
  /** When this server's prices and requirements were set: the manifest's lastUpdated. */
  private readonly startedAt = new Date().toISOString();

  constructor(
    private readonly config: Config,
    /** The server's one price list (payments/prices.ts). */
    readonly prices: PriceList,
    private readonly state: StateStore,
    private readonly log: Logger,
  ) {
    this.mode = paymentMode(config);
    // In PostgreSQL (CKG_STATE_URL) replicas share the ledger; one server keeps it in its state database.
    this.ledger = new PaymentLedger(state);
    this.answers = new PaidAnswers(state);
    if (this.mode !== "off") {
      this.facilitation = createFacilitation(config);
      this.server = new x402ResourceServer(this.facilitation.client).register(config.network, new ExactEvmScheme());
    }
  }

  /** Connects to the facilitator (its supported kinds) and starts reconciling unknown settlements. */
  start(): Promise<void> {
    if (!this.server) return Promise.resolve();
    this.ready ??= this.server.initialize().then(
      () => {
        this.started = true;
        this.startError = undefined;
        // A failed round (the state database closed under it at shutdown) is logged; the next one tries again.
        const round = () => this.reconcile().catch((error: Error) => this.log.warn({ err: error.message }, "reconciling payments failed"));
        this.reconciler = setInterval(round, RECONCILE_EVERY_MS);
        this.reconciler.unref?.();
        void round();
      },
      (error: Error) => {
        this.startError = error.message;
        this.ready = undefined; // the next paid request tries again
        this.log.error({ err: error.message }, "payment facilitator unreachable; paid routes answer 503 until it answers");
        throw error;
      },
    );
    return this.ready;
  }


  async status(): Promise<Record<string, unknown>> {
    return {
      mode: this.mode,
      ...(this.mode === "off" ? { note: "payments are off: no pay-to address is configured, every route is free" } : {}),
      ...(this.facilitation ? { ...this.facilitation.describe, pay_to: this.config.pay_to } : {}),
      ...(this.startError ? { error: this.startError } : {}),
      ledger_store: this.state.engine,
      // The state store may be down (a PostgreSQL away): /readyz says so rather than failing.
      ledger: await this.ledger.counts().catch((error: Error) => ({ error: `the ledger cannot be read: ${error.message}` })),
    };
  }

  /** For a paid route: the challenge, or a verified and claimed payment. Undefined when the route is free. */
  async begin(op: PaidOperation, offer: PaymentOffer, requestId: string): Promise<PaidRequest | undefined> {
    const price = this.prices.of(op.name);
    if (price === 0 || !this.server || offer.operator) return undefined;
    try {
      if (!this.started) await this.start();
    } catch (error) {
      throw new CkgError("not_ready", `Payments are not available yet: the facilitator did not answer (${(error as Error).message}).`, { retryAfterSeconds: 10 });
    }
    const server = this.server;
    const accepts = await this.requirementsFor(op, price);
    let described: { resource: ResourceInfo; extensions?: Record<string, unknown> } | undefined;
    const describe = () => {
      const { extensions, ...meta } = offer.describe?.() ?? {};
      return (described ??= { resource: { url: offer.resourceUrl, description: op.summary, mimeType: "application/json", ...meta }, extensions });
    };
    const challenge = async (reason: string) => {
      const { resource, extensions } = describe();
      return new PaymentRequiredError(await server.createPaymentRequiredResponse(accepts, resource, reason, { ...PAYMENT_IDENTIFIER_DECLARATION, ...extensions }));
    };

    const sent = offer.payload ?? offer.header;
    if (!sent) {
      const key = `${op.name} ${offer.resourceUrl}`;
      let plain = this.challenges.get(key);
      if (!plain) {
        plain = await challenge("payment required");
        void plain.header; // header and body encoded once, kept with it
        void plain.body;
        this.challenges.set(key, plain);
      }
      throw plain;
    }
    let payload: PaymentPayload;
    try {
      payload = typeof sent === "string" ? decodePaymentSignatureHeader(sent) : (sent as PaymentPayload);
      if (!payload || typeof payload !== "object" || !payload.accepted || !payload.payload) throw new Error("not a payment payload");
    } catch (error) {
      throw await challenge(`malformed payment (${typeof sent === "string" ? "payment-signature header" : "x402/payment"}): ${(error as Error).message}`);
    }
    if (payload.x402Version !== 2) throw await challenge(`unsupported x402Version ${String(payload.x402Version)}; this server speaks version 2`);
    const id = paymentIdentifier(payload);
    if (id) {
      const claimed = await this.answers.claim(id, offer.requestKey ?? op.name);
      if (!claimed.claimed) {
        await provePayer(this.server!, payload, accepts, claimed.payer, challenge);
        return { kept: claimed.kept, settle: async () => claimed.kept.settlement, release: async () => undefined };
      }
    }
    try {
      return await this.take(op, payload, accepts, id, requestId, challenge);
    } catch (error) {
      if (id) await this.answers.release(id);
      throw error;
    }
  }

  /** Claims, verifies and (through the answer) settles one payment for a request. */
  private async take(
    op: PaidOperation,
    payload: PaymentPayload,
    accepts: PaymentRequirements[],
    id: string | undefined,
    requestId: string,
    challenge: (reason: string) => Promise<PaymentRequiredError>,
  ): Promise<PaidRequest> {
    const server = this.server!;
    const matched = server.findMatchingRequirements(accepts, payload);
    if (!matched) throw await challenge(mismatch(accepts[0]!, payload.accepted));

    const authorization = (payload.payload as { authorization?: { from?: string; nonce?: string; validBefore?: string } }).authorization;
    const key = paymentKey(matched, payload);
    const claim = await this.ledger.claim({
      key,
      operation: op.name,
      amount: matched.amount,
      asset: matched.asset,
      network: matched.network,
      payTo: matched.payTo,
      payer: authorization?.from ?? null,
      nonce: authorization?.nonce ?? null,
      validBefore: authorization?.validBefore ? Number(authorization.validBefore) : null,
      requestId,
    });
    if (!claim.ok) {
      const state = claim.existing.state;
      throw await challenge(
        state === "verifying" || state === "verified" || state === "settling"
          ? "this payment is being used by another request right now; one payment buys one answer"
          : state === "failed"
            ? `this payment failed before (${claim.existing.error ?? "settlement failed"}); sign a new one`
            : "this payment was already used; one payment buys one answer",
      );
    }

    let verified: Awaited<ReturnType<typeof server.verifyPayment>>;
    try {
      verified = await server.verifyPayment(payload, matched);
    } catch (error) {
      await this.ledger.release(key);
      throw new CkgError("upstream_unavailable", `The payment facilitator failed to verify the payment: ${(error as Error).message}. Nothing was charged.`);
    }
    if (!verified.isValid) {
      await this.ledger.release(key);
      throw await challenge(`payment invalid: ${verified.invalidReason ?? "rejected"}${verified.invalidMessage ? ` (${verified.invalidMessage})` : ""}`);
    }
    await this.ledger.mark(key, "verified", { payer: verified.payer });

    return {
      release: async () => {
        await this.ledger.release(key);
        if (id) await this.answers.release(id);
      },
      settle: (answer) => settleOnce({ server, ledger: this.ledger, answers: this.answers, log: this.log }, { key, id, payload, matched, requestId, challenge }, answer),
    };
  }

  /** Settles the ledger's unknown payments from the chain (payments/reconcile.ts); how many it settled. */
  reconcile(): Promise<number> {
    const chain = this.facilitation?.chain;
    return chain ? reconcileUnknown(this.ledger, chain, this.log) : Promise.resolve(0);
  }

  close(): void {
    if (this.reconciler) clearInterval(this.reconciler);
  }

  /**
   * What each paid operation accepts, for /.well-known/x402.json (none while payments are off), and
   * since when: the prices and requirements of this server do not change while it runs.
   */
  async acceptedBy<O extends PaidOperation>(operations: readonly O[]): Promise<{ since: string; paid: { op: O; accepts: PaymentRequirements[] }[] }> {
    const paid = operations.filter((op) => this.prices.of(op.name) > 0);
    if (!this.server || paid.length === 0) return { since: this.startedAt, paid: [] };
    try {
      if (!this.started) await this.start();
    } catch (error) {
      throw new CkgError("not_ready", `Payments are not available yet: the facilitator did not answer (${(error as Error).message}).`, { retryAfterSeconds: 10 });
    }
    return { since: this.startedAt, paid: await Promise.all(paid.map(async (op) => ({ op, accepts: await this.requirementsFor(op, this.prices.of(op.name)) }))) };
  }

  private async requirementsFor(op: PaidOperation, price: number): Promise<PaymentRequirements[]> {
    let accepts = this.requirements.get(op.name);
    if (!accepts) {
      accepts = await this.server!.buildPaymentRequirements({
        scheme: "exact",
        payTo: this.config.pay_to!,
        price: dollars(price),
        network: this.config.network,
        maxTimeoutSeconds: 120,
      });
      this.requirements.set(op.name, accepts);
    }
    return accepts;
  }
}



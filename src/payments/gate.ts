/**
 * @module payments/gate
 * x402 v2 for the paid routes, on every configured rail (USDC on Base, on Solana: payments/rails.ts).
 * The offer comes first: an unpaid request is asked to pay whatever its input, and every challenge
 * says whether the input would be answered (payments/input-verdict.ts); a request that pays or
 * signs in with an input that would be refused gets the refusal without meeting the gate
 * (operations/invoke). For a valid input, the gate answers with an Admission (payments/offer.ts):
 *   - free: a free route, payments off, the operator, or a valid sign-in-with-x message from a
 *     wallet that paid for the resource lately (siwx_access_seconds; payments/sign-in.ts);
 *   - payment-required, for a request without a payment: the PaymentRequired object;
 *   - payment-verified, for one with a payment: decoded, matched to this route's requirements
 *     (naming the field that differs when it is not: payment-required again), claimed in the ledger
 *     (a used or in-use payment is refused), verified with the facilitator. The handler runs, then
 *     the payment settles: a failed settlement asks for payment again, never giving the content; a
 *     handler error releases the claim (nothing is settled); a settlement that times out is
 *     recorded as unknown, reconciled against the chain, and refused with settlement_unknown;
 *   - paid-before: a retry under a payment identifier, by the wallet that paid: the kept answer;
 *   - refused: a documented error (payments not started, a payment identifier misused, the
 *     facilitator failing). The gate throws only what it did not expect.
 * Each transport renders these values in one place. The protocol objects (requirements, challenge,
 * verify, settle) are @x402/core's.
 */
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { x402ResourceServer } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { ExactSvmScheme } from "@x402/svm/exact/server";
import type { Config } from "../config/config.ts";
import { CkgError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { StateStore } from "../store/state.ts";
import { type PaymentMode, paymentMode } from "../config/settings-payments.ts";
import { type Facilitation, createFacilitation } from "./facilitator.ts";
import { PaymentLedger, whyRefused } from "./ledger.ts";
import type { PriceList } from "./prices.ts";
import { reconcileSolana, reconcileUnknown } from "./reconcile.ts";
import { mismatch, paymentKey } from "./matching.ts";
import { PaidAnswers, paymentIdentifier, provePayer } from "./idempotency.ts";
import { Challenges, type JudgedOffer } from "./challenge.ts";
import { settleOnce } from "./settle.ts";
import { Accepts } from "./accepts.ts";
import { railsOf } from "./rails.ts";
import { SignInAccess } from "./sign-in.ts";
import { type Admission, type Challenge, type PaidOperation, type PaymentOffer, type PaymentRequiredOutcome, type Refused, refusing } from "./offer.ts";

const RECONCILE_EVERY_MS = 30_000;

const FREE = { type: "free" } as const;

export class PaymentGate {
  readonly mode: PaymentMode;
  private readonly ledger: PaymentLedger;
  private readonly answers: PaidAnswers;
  private server: x402ResourceServer | undefined;
  private facilitation: Facilitation | undefined;
  private ready: Promise<void> | undefined;
  private accepts: Accepts | undefined;
  /** Repeat access by signing in, when siwx_access_seconds is set. */
  private readonly signIn: SignInAccess | undefined;
  private challenges: Challenges | undefined;
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
      const server = new x402ResourceServer(this.facilitation.client);
      const rails = railsOf(config);
      for (const rail of rails) server.register(rail.network, rail.family === "evm" ? new ExactEvmScheme() : new ExactSvmScheme());
      this.server = server;
      this.accepts = new Accepts(server, rails);
      if (config.siwx_access_seconds > 0) {
        // The signed domain and URI are checked against the configured public URL, never a request's Host.
        if (!config.base_url) throw new Error("siwx_access_seconds needs base_url: the public URL signed-in messages are checked against");
        this.signIn = new SignInAccess(state, config.base_url, config.siwx_access_seconds, rails.map((rail) => rail.network), this.facilitation.chain);
      }
      this.challenges = new Challenges(server, this.signIn, prices);
    }
  }

  /** Started, or not_ready saying why not. */
  private async ensureStarted(): Promise<void> {
    try {
      if (!this.started) await this.start();
    } catch (error) {
      throw new CkgError("not_ready", `Payments are not available yet: ${(error as Error).message.replace(/\.$/, "")}.`, { retryAfterSeconds: 10 });
    }
  }

  /** Connects to the facilitator (its supported kinds) and starts reconciling unknown settlements. */
  start(): Promise<void> {
    if (!this.server) return Promise.resolve();
    // Every rail must be one the facilitator settles: checked with its answer, failing the start like it.
    const server = this.server;
    this.ready ??= this.facilitation!.ready.then(() => server.initialize()).then(() => this.accepts!.check()).then(
      () => {
        this.started = true;
        this.startError = undefined;
        // A failed round (the state database closed under it at shutdown) is logged; the next one tries again.
        const round = () =>
          Promise.all([this.reconcile(), this.signIn?.prune()]).catch((error: Error) => this.log.warn({ err: error.message }, "reconciling payments failed"));
        this.reconciler = setInterval(round, RECONCILE_EVERY_MS);
        this.reconciler.unref?.();
        void round();
      },
      (error: Error) => {
        this.startError = error.message;
        this.ready = undefined; // the next paid request tries again
        this.log.error({ err: error.message }, "payments cannot start; paid routes answer 503 until they can");
        throw error;
      },
    );
    return this.ready;
  }

  /** For /readyz (api/readiness describes it): the mode, where payments settle, the ledger's counts. */
  async status() {
    return {
      mode: this.mode,
      ...(this.mode === "off" ? { note: "payments are off: no pay-to address is configured, every route is free" } : {}),
      ...(this.facilitation ? { ...this.facilitation.describe, pay_to: this.config.pay_to, pay_to_solana: this.config.pay_to_solana } : {}),
      ...(this.signIn ? { sign_in_with_x: { access_seconds: this.config.siwx_access_seconds } } : {}),
      ...(this.startError ? { error: this.startError } : {}),
      ledger_store: this.state.engine,
      // The state store may be down (a PostgreSQL away): /readyz says so rather than failing.
      ledger: await this.ledger.counts().catch((error: Error) => ({ error: `the ledger cannot be read: ${error.message}` })),
    };
  }

  /** The price a request is charged: 0 when its route is free, payments are off or it is the operator's. */
  private priceFor(op: PaidOperation, offer: PaymentOffer): number {
    return !this.server || offer.operator ? 0 : this.prices.of(op.name);
  }

  /**
   * For a request whose input would be refused (operations/invoke): the offer first. The challenge,
   * verdict included, when the request would be asked to pay (it sends neither a payment nor a
   * message to sign in with); undefined when it would not, and the caller answers the refusal.
   * Claims, verifies and uses up nothing: a payment sent with bad input stays usable.
   */
  async askFirst(op: PaidOperation, offer: JudgedOffer): Promise<PaymentRequiredOutcome | Refused | undefined> {
    const price = this.priceFor(op, offer);
    if (price === 0 || (offer.payload ?? offer.header) || (offer.signIn && this.signIn)) return undefined;
    return refusing(async () => {
      await this.ensureStarted();
      return this.challenges!.unpaid(op, offer, await this.accepts!.of(op.name, price));
    });
  }

  /** For a paid route and a valid input: what the request gets (free, a verified payment, a challenge, a refusal). */
  begin(op: PaidOperation, offer: JudgedOffer, requestId: string): Promise<Admission> {
    return refusing(() => this.admit(op, offer, requestId));
  }

  private async admit(op: PaidOperation, offer: JudgedOffer, requestId: string): Promise<Admission> {
    const price = this.priceFor(op, offer);
    if (price === 0) return FREE;
    let signInRefused: string | undefined;
    // Signing in needs no facilitator: it is checked first.
    if (offer.signIn && this.signIn) {
      const outcome = await this.signIn.grant(offer.signIn, offer.resourceUrl);
      if (outcome.granted) {
        this.log.info({ req_id: requestId, payer: outcome.payer, operation: op.name }, "signed in: repeat access to a paid resource, not charged");
        return FREE;
      }
      signInRefused = `sign-in-with-x not accepted (${outcome.reason})`;
    }
    await this.ensureStarted();
    const accepts = await this.accepts!.of(op.name, price);
    const sent = offer.payload ?? offer.header;
    if (!sent) return this.challenges!.unpaid(op, offer, accepts, signInRefused);
    const challenge = this.challenges!.of(op, offer, accepts, signInRefused);
    let payload: PaymentPayload;
    try {
      payload = typeof sent === "string" ? decodePaymentSignatureHeader(sent) : (sent as PaymentPayload);
      if (!payload || typeof payload !== "object" || !payload.accepted || !payload.payload) throw new Error("not a payment payload");
    } catch (error) {
      return challenge(`malformed payment (${typeof sent === "string" ? "payment-signature header" : "x402/payment"}): ${(error as Error).message}`);
    }
    if (payload.x402Version !== 2) return challenge(`unsupported x402Version ${String(payload.x402Version)}; this server speaks version 2`);
    const id = paymentIdentifier(payload);
    if (id) {
      const claimed = await this.answers.claim(id, offer.requestKey ?? op.name);
      if (!claimed.claimed) return (await provePayer(this.server!, payload, accepts, claimed.payer, challenge)) ?? { type: "paid-before", kept: claimed.kept };
    }
    // Paid over HTTP, its payer may sign in to the resource later (MCP has no sign-in).
    const signInTo = this.signIn && offer.header ? offer.resourceUrl : undefined;
    let taken: Admission | undefined;
    try {
      taken = await this.take(op, signInTo, payload, accepts, id, requestId, challenge);
      return taken;
    } finally {
      // Not taken (asked to pay again, refused, failed): the identifier is free again.
      if (id && taken?.type !== "payment-verified") await this.answers.release(id);
    }
  }

  /** Claims, verifies and (through the answer) settles one payment for a request. */
  private async take(
    op: PaidOperation,
    signInTo: string | undefined,
    payload: PaymentPayload,
    accepts: PaymentRequirements[],
    id: string | undefined,
    requestId: string,
    challenge: Challenge,
  ): Promise<Admission> {
    const server = this.server!;
    const matched = server.findMatchingRequirements(accepts, payload);
    if (!matched) return challenge(mismatch(accepts, payload.accepted));

    const authorization = (payload.payload as { authorization?: { from?: string; nonce?: string; validBefore?: string } }).authorization;
    let key: string;
    try {
      key = paymentKey(matched, payload);
    } catch (error) {
      return challenge(`malformed payment: ${(error as Error).message}`);
    }
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
    if (!claim.ok) return challenge(whyRefused(claim.existing));

    let verified: Awaited<ReturnType<typeof server.verifyPayment>>;
    try {
      verified = await server.verifyPayment(payload, matched);
    } catch (error) {
      await this.ledger.release(key);
      throw new CkgError("upstream_unavailable", `The payment facilitator failed to verify the payment: ${(error as Error).message}. Nothing was charged.`);
    }
    if (!verified.isValid) {
      await this.ledger.release(key);
      return challenge(`payment invalid: ${verified.invalidReason ?? "rejected"}${verified.invalidMessage ? ` (${verified.invalidMessage})` : ""}`);
    }
    await this.ledger.mark(key, "verified", { payer: verified.payer });

    const deps = { server, ledger: this.ledger, answers: this.answers, signIn: this.signIn, log: this.log };
    const payment = {
      release: async () => {
        await this.ledger.release(key);
        if (id) await this.answers.release(id);
      },
      settle: (answer: unknown) => settleOnce(deps, { key, id, signInTo, payload, matched, requestId, challenge }, answer),
    };
    return { type: "payment-verified", payment };
  }

  /** Settles the ledger's unknown payments from the chains (payments/reconcile.ts); how many it settled or failed. */
  async reconcile(): Promise<number> {
    const { chain, solana } = this.facilitation ?? {};
    const [onBase, onSolana] = await Promise.all([chain ? reconcileUnknown(this.ledger, chain, this.log) : 0, solana ? reconcileSolana(this.ledger, solana, this.log) : 0]);
    return onBase + onSolana;
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
    await this.ensureStarted();
    return { since: this.startedAt, paid: await Promise.all(paid.map(async (op) => ({ op, accepts: await this.accepts!.of(op.name, this.prices.of(op.name)) }))) };
  }
}



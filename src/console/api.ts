/**
 * The console's one way to the public API: same-origin fetch (the operator's session cookie rides
 * along), answers as JSON, failures as ApiError in the API's documented error shape. Routes, their
 * parameters, bodies and answers are typed from the server's /openapi.json (api-types.ts, generated).
 */
import type { Answers, Bodies, ErrorBody, RouteParams } from "./api-types.ts";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** A paid route answered 402: the console needs the operator's sign-in (or an x402 client). */
  get paymentRequired(): boolean {
    return this.status === 402;
  }
}

/**
 * The price a 402 asks, in USD, from its x402 PaymentRequired body (`accepts[].amount`, in the
 * asset's smallest unit). Every rail this server offers is USDC, which has 6 decimals on Base and on
 * Solana. Undefined when the body does not say.
 */
function priceOf(paymentRequired: unknown): number | undefined {
  const accepts = (paymentRequired as { accepts?: { amount?: unknown }[] } | undefined)?.accepts;
  const amount = Number(accepts?.[0]?.amount);
  return Number.isFinite(amount) && amount > 0 ? amount / 1e6 : undefined;
}

function paymentRequiredError(body: unknown): ApiError {
  const price = priceOf(body);
  const cost = price === undefined ? "This route is paid (x402)" : `This route costs $${price.toFixed(2)} (x402, in USDC)`;
  // The 402 comes whatever the input; it says when the input would be refused anyway, which a visitor should hear too.
  const verdict = (body as { extensions?: Record<string, { info?: { valid?: boolean; error?: { message?: string } } }> } | undefined)?.extensions?.["ckg/input"]?.info;
  const refused = verdict?.valid === false && verdict.error?.message ? ` This input would be refused anyway: ${verdict.error.message}` : "";
  return new ApiError(402, "payment_required", `${cost}. Signing in as the operator makes the console's calls free; anyone else calls it with an x402 client.${refused}`, {
    price_usd: price,
    ...(refused ? { input_error: verdict!.error } : {}),
  });
}

/** A documented route of the server, as /openapi.json names it: "GET /api/insights/entity/{entity_name}". */
export type ApiRoute = keyof Answers;

type Params<R extends ApiRoute> = R extends keyof RouteParams ? ({} extends RouteParams[R] ? { params?: RouteParams[R] } : { params: RouteParams[R] }) : { params?: undefined };
type Body<R extends ApiRoute> = R extends keyof Bodies ? { body: Bodies[R] } : { body?: undefined };
/**
 * What a call sends: the route's path and query parameters in one object (as its input schema has
 * them), its JSON body, and a bearer token (a subscription's secret) for the Authorization header,
 * where it stays out of addresses and histories.
 */
export type Call<R extends ApiRoute> = Params<R> & Body<R> & { signal?: AbortSignal; bearer?: string };

/** Calls a route: path parameters go into the path, the other parameters into the query string. */
export async function api<R extends ApiRoute>(route: R, ...[call]: {} extends Call<R> ? [call?: Call<R>] : [call: Call<R>]): Promise<Answers[R]> {
  const [method, template] = route.split(" ") as [string, string];
  const rest: Record<string, unknown> = { ...call?.params };
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(String(value));
  });
  const body = call?.body;
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (call?.bearer) headers.authorization = `Bearer ${call.bearer}`;
  const response = await fetch(`${path}${query(rest)}`, {
    method,
    signal: call?.signal,
    credentials: "same-origin",
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return null as Answers[R];
  const text = await response.text();
  const json = text ? (JSON.parse(text) as unknown) : undefined;
  if (response.status === 402) throw paymentRequiredError(json);
  if (!response.ok) {
    // Not every failure is the server's own (a proxy's 502 page): then the status says it.
    const error = (json as Partial<ErrorBody> | undefined)?.error;
    throw new ApiError(response.status, error?.code ?? "http_error", error?.message ?? `HTTP ${response.status}`, error?.details ?? {});
  }
  return json as Answers[R];
}

/**
 * Calls `load` once its inputs have stayed the same for `delayMs` (typing, picking filters),
 * cancelling the call before when they change; its answer or failure goes to `done`.
 */
export function debounced<T>(load: (signal: AbortSignal) => Promise<T>, done: (answer: T | null, error: unknown) => void, delayMs: number): () => void {
  const abort = new AbortController();
  const timer = setTimeout(() => {
    load(abort.signal).then(
      (answer) => done(answer, null),
      (error: Error) => error.name !== "AbortError" && done(null, error),
    );
  }, delayMs);
  return () => {
    clearTimeout(timer);
    abort.abort();
  };
}

/** The query string of a GET, leaving out empty values. */
export function query(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== "") search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}

// What the pages read and send, named: parts of the generated types, never copies.

export type Answer<R extends ApiRoute> = Answers[R];
export type EntityType = NonNullable<Bodies["POST /api/search"]["entity_types"]>[number];
export type Qualification = NonNullable<RouteParams["GET /api/insights/signals"]["qualification"]>;
export type ChangeOperation = NonNullable<RouteParams["GET /api/changes"]["operation"]>;

export type Explored = Answers["POST /api/explore"];
export type EntityAnalysis = Answers["GET /api/insights/entity/{entity_name}"];
export type Signal = EntityAnalysis["signals"][number];
export type DataPoint = Signal["evidence"]["data_points"][number];
export type SignalListing = Answers["GET /api/insights/signals"];
export type Catalog = Answers["GET /api/signals/catalog"];
/** A signal type's measured record in the backtest the catalog carries. */
export type TypeQuality = Catalog["signal_types"][number]["quality"];
/** The backtest the catalog's quality comes from: world, window, labels, events, controls. */
export type QualityReport = Catalog["quality"];
export type LabelledEvent = QualityReport["events"][number];
export type Change = Extract<Answers["GET /api/changes"], { changes: unknown }>["changes"][number];
export type SqlAnswer = Answers["POST /api/timeseries"];
export type Schema = Answers["GET /api/schema"];
export type SessionInfo = Answers["GET /console/session"];
export type Subscription = Answers["GET /api/subscriptions/{subscription_id}"];
export type MadeSubscription = Answers["POST /api/subscriptions"];
export type SubscriptionFilters = MadeSubscription["filters"];
export type SubscriptionRequest = Bodies["POST /api/subscriptions"];
export type SignalFilters = Exclude<NonNullable<NonNullable<SubscriptionRequest["filters"]>["signals"]>, false>;
/** /readyz answers 503 with the same body while the server is not ready: pages read it with fetch, either way. */
export type Readiness = Answers["GET /readyz"];

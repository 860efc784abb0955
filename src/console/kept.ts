/**
 * The subscriptions this browser made, kept in its localStorage with their secrets: the server shows
 * a secret once (at the making and at each rotation), and reading, rotating, deleting a subscription
 * or opening its stream all need it. Only this origin's pages can read them; clearing the site's
 * data forgets them (the subscriptions themselves run on until their period ends).
 */

export interface KeptSubscription {
  subscription_id: string;
  secret: string;
  made_at: string;
  expires_at: string;
  /** Made by the signals page's Live control for these signal filters (their JSON): reused while they are the same. */
  live_for?: string;
  /** The id of the last event the Live list got: reopening the stream resumes after it. */
  last_event_id?: string;
}

const KEY = "ckg.subscriptions";

export function keptSubscriptions(): KeptSubscription[] {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY) ?? "[]") as unknown;
    return Array.isArray(stored) ? stored.filter(isKept) : [];
  } catch {
    // Storage turned off, or what is there is not ours: nothing kept.
    return [];
  }
}

export function keep(subscription: KeptSubscription): void {
  write([...keptSubscriptions().filter((k) => k.subscription_id !== subscription.subscription_id), subscription]);
}

export function updateKept(id: string, change: Partial<KeptSubscription>): void {
  write(keptSubscriptions().map((k) => (k.subscription_id === id ? { ...k, ...change } : k)));
}

export function forget(id: string): void {
  write(keptSubscriptions().filter((k) => k.subscription_id !== id));
}

/** The Live subscription kept for these filters, while its period runs. */
export function keptForLive(filters: string): KeptSubscription | undefined {
  return keptSubscriptions().find((k) => k.live_for === filters && Date.parse(k.expires_at) > Date.now());
}

function write(list: KeptSubscription[]): void {
  localStorage.setItem(KEY, JSON.stringify(list));
}

function isKept(value: unknown): value is KeptSubscription {
  const k = value as Partial<KeptSubscription> | null;
  return typeof k?.subscription_id === "string" && typeof k.secret === "string" && typeof k.expires_at === "string";
}

/**
 * @module api/console-session
 * The operator's session in the web console: signing in with `CKG_CONSOLE_TOKEN` sets an HttpOnly
 * cookie, and requests that carry it are not charged (payments/gate.ts, `operator`). The cookie is
 * stateless, `<expiry>.<HMAC of the expiry keyed by the token>`, so every replica sharing the token
 * accepts it and changing the token signs everyone out. SameSite=Strict: another site's page cannot
 * spend it. The token itself is compared in constant time and never logged or echoed.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { CkgError } from "../errors.ts";

const SESSION_COOKIE = "ckg_console";
/** How long a sign-in lasts. */
const SESSION_SECONDS = 12 * 3600;

export class ConsoleSessions {
  constructor(private readonly token: string | undefined) {}

  /** Whether an operator can sign in at all (a token is configured). */
  get enabled(): boolean {
    return this.token !== undefined;
  }

  /** The Set-Cookie value of a new session, or 401 when `given` is not the token. */
  signIn(given: unknown, secure: boolean): string {
    if (!this.token) throw new CkgError("not_found", "The console has no sign-in: no CKG_CONSOLE_TOKEN is configured.");
    // Compared as HMACs of equal length: the time taken says nothing of the token, not even its length.
    if (typeof given !== "string" || !sameText(this.digest(given), this.digest(this.token))) throw new CkgError("unauthorized", "That is not the console token.");
    const expires = Math.floor(Date.now() / 1000) + SESSION_SECONDS;
    return cookie(`${expires}.${this.sign(expires)}`, SESSION_SECONDS, secure);
  }

  /** The Set-Cookie value that ends a session. */
  signOut(secure: boolean): string {
    return cookie("", 0, secure);
  }

  /** Whether the request's cookies hold a live session. */
  isOperator(cookieHeader: string | null): boolean {
    if (!this.token || !cookieHeader) return false;
    const value = cookieHeader
      .split(";")
      .map((part) => part.trim())
      .find((part) => part.startsWith(`${SESSION_COOKIE}=`))
      ?.slice(SESSION_COOKIE.length + 1);
    const [expires, mac] = value?.split(".") ?? [];
    if (!expires || !mac || !/^\d+$/.test(expires) || Number(expires) < Date.now() / 1000) return false;
    return sameText(mac, this.sign(Number(expires)));
  }

  private digest(text: string): string {
    return createHmac("sha256", "ckg-console-token").update(text).digest("base64url");
  }

  private sign(expires: number): string {
    return createHmac("sha256", this.token!).update(`ckg-console:${expires}`).digest("base64url");
  }
}

function sameText(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookie(value: string, maxAge: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

/** The operator's sign-in: the console token, exchanged for an HttpOnly session cookie. */
import { useState } from "preact/hooks";
import { type SessionInfo, api } from "../api.ts";
import { ErrorBox } from "../components/notes.tsx";

export function SignInPage({ session, onChange }: { session: SessionInfo | null; onChange(): void }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<unknown>(null);
  if (session?.signed_in) {
    return (
      <section>
        <h1>Signed in</h1>
        <p>The console's requests are not charged while you are signed in.</p>
        <button type="button" onClick={() => void api("DELETE /console/session").then(onChange, setError)}>
          Sign out
        </button>
        <ErrorBox error={error} />
      </section>
    );
  }
  return (
    <section>
      <h1>Sign in</h1>
      {session && !session.sign_in ? <p>This server has no console token (CKG_CONSOLE_TOKEN): there is nothing to sign in to.</p> : null}
      <p>
        Payments are <strong>{session?.payments ?? "…"}</strong>. With the operator's token, the console's requests are not charged; everyone else pays per request
        with x402.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          api("POST /console/session", { body: { token } }).then(() => {
            setToken("");
            setError(null);
            onChange();
          }, setError);
        }}
      >
        <label for="token">Console token</label>
        <input id="token" type="password" autoComplete="current-password" value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
      <ErrorBox error={error} />
    </section>
  );
}

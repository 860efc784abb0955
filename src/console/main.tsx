/**
 * The web console (served at / by the same executable; no network needed): search, entity pages
 * with charts, the signals dashboard (live from the event stream on request), each signal type's
 * measured quality with its labelled events charted, SPARQL and SQL
 * consoles, the changes feed, push subscriptions and the server's status, all through the public API. Synthetic demo data is marked wherever it shows, and a banner
 * says so on every page while the snapshot holds any.
 */
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { type Readiness, type SessionInfo, api } from "./api.ts";
import { ChangesPage } from "./pages/changes.tsx";
import { EntityPage } from "./pages/entity.tsx";
import { QualityPage } from "./pages/quality.tsx";
import { QueryPage } from "./pages/query.tsx";
import { SearchPage } from "./pages/search.tsx";
import { SignInPage } from "./pages/signin.tsx";
import { SignalsPage } from "./pages/signals.tsx";
import { StatusPage } from "./pages/status.tsx";
import { SubscriptionsPage } from "./pages/subscriptions.tsx";
import { href, useRoute } from "./route.ts";
import "./style.css";

const NAV: [string, string][] = [
  ["search", "Search"],
  ["signals", "Signals"],
  ["quality", "Quality"],
  ["sparql", "SPARQL"],
  ["sql", "SQL"],
  ["changes", "Changes"],
  ["subscriptions", "Subscriptions"],
  ["status", "Status"],
];

function App() {
  const route = useRoute();
  const [session, setSession] = useState<SessionInfo | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const refresh = () => void api("GET /console/session").then(setSession, () => setSession(null));
  useEffect(() => {
    refresh();
    void fetch("/readyz")
      .then((r) => r.json() as Promise<Readiness>)
      .then((ready) => setNotice(ready.snapshot?.synthetic ? ready.snapshot.notice : null))
      .catch(() => undefined);
  }, []);
  useEffect(() => {
    document.title = `${NAV.find(([page]) => page === route.page)?.[1] ?? (route.arg || "ckg")} · ckg console`;
  }, [route.page, route.arg]);

  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById("main")?.focus())}>
        Skip to content
      </a>
      <header>
        <a class="brand" href={href("search")}>
          ckg
        </a>
        <nav aria-label="pages">
          {NAV.map(([page, label]) => (
            <a href={href(page)} aria-current={route.page === page ? "page" : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span class="session">
          {session?.sign_in ? <a href={href("signin")}>{session.signed_in ? "Operator (signed in)" : "Sign in"}</a> : null}
          {session ? <span class="muted"> payments {session.payments}</span> : null}
        </span>
      </header>
      {notice ? (
        <p class="banner" role="note">
          <span class="synthetic">synthetic</span> {notice}
        </p>
      ) : null}
      <main id="main" tabIndex={-1}>
        <Page route={route} session={session} onSession={refresh} />
      </main>
    </>
  );
}

function Page({ route, session, onSession }: { route: ReturnType<typeof useRoute>; session: SessionInfo | null; onSession(): void }) {
  switch (route.page) {
    case "entity":
      return <EntityPage route={route} />;
    case "signals":
      return <SignalsPage route={route} />;
    case "quality":
      return <QualityPage route={route} />;
    case "sparql":
      return <QueryPage route={route} language="sparql" key="sparql" />;
    case "sql":
      return <QueryPage route={route} language="sql" key="sql" />;
    case "changes":
      return <ChangesPage route={route} />;
    case "subscriptions":
      return <SubscriptionsPage session={session} />;
    case "status":
      return <StatusPage />;
    case "signin":
      return <SignInPage session={session} onChange={onSession} />;
    default:
      return <SearchPage route={route} />;
  }
}

render(<App />, document.getElementById("app")!);

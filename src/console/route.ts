/**
 * Where the console is, kept in the address (shareable, and the back button works): the hash is
 * `#/<page>/<argument>?<state>`, e.g. `#/entity/Aave?range=90` or `#/sql?q=SELECT...`.
 */
import { useEffect, useState } from "preact/hooks";

export interface Route {
  page: string;
  arg: string;
  params: URLSearchParams;
}

function parseRoute(hash = location.hash): Route {
  const [path = "", search = ""] = hash.replace(/^#\/?/, "").split("?");
  const [page = "", ...rest] = path.split("/");
  return { page: page || "search", arg: decodeURIComponent(rest.join("/")), params: new URLSearchParams(search) };
}

export function href(page: string, arg?: string, params: Record<string, string | number | undefined> = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== "") search.set(key, String(value));
  const text = search.toString();
  return `#/${page}${arg ? `/${encodeURIComponent(arg)}` : ""}${text ? `?${text}` : ""}`;
}

/** An address change made by the console itself (replaceState fires no hashchange). */
const CHANGED = "ckg:route";

/**
 * Replaces the state of the current page in the address without a new history entry; `notify`
 * re-renders the page from it (a control whose state lives only in the address).
 */
export function replaceParams(params: Record<string, string | number | undefined>, notify = false): void {
  const route = parseRoute();
  history.replaceState(null, "", href(route.page, route.arg || undefined, params));
  if (notify) dispatchEvent(new Event(CHANGED));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(parseRoute);
  useEffect(() => {
    const update = () => setRoute(parseRoute());
    addEventListener("hashchange", update);
    addEventListener(CHANGED, update);
    return () => {
      removeEventListener("hashchange", update);
      removeEventListener(CHANGED, update);
    };
  }, []);
  return route;
}

export function entityHref(nameOrUri: string): string {
  return href("entity", nameOrUri);
}

/** Small shared pieces: the synthetic mark, an error box, a loading line. */
import type { ComponentChildren } from "preact";
import { ApiError } from "../api.ts";
import { href } from "../route.ts";

/** Generated demo data, marked wherever it is shown. */
export function Synthetic(props: { when: boolean }) {
  return props.when ? (
    <span class="synthetic" title="generated demo data, not facts about the real world">
      synthetic
    </span>
  ) : null;
}

export function ErrorBox(props: { error: unknown }) {
  const error = props.error;
  if (!error) return null;
  const api = error instanceof ApiError ? error : undefined;
  return (
    <div class="error" role="alert">
      <strong>{api ? `${api.status} ${api.code}` : "Error"}</strong>: {(error as Error).message}
      {api?.paymentRequired ? (
        <>
          {" "}
          <a href={href("signin")}>Sign in</a>
        </>
      ) : null}
    </div>
  );
}

export function Loading(props: { children?: ComponentChildren }) {
  return (
    <p class="loading" role="status">
      {props.children ?? "Loading…"}
    </p>
  );
}

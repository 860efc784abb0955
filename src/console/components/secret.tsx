/** A subscription's secret, shown the one time the server gives it, with a way to copy it. */
import { useState } from "preact/hooks";

export function ShownOnce({ secret, label }: { secret: string; label: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = () =>
    // The clipboard needs a secure context (https or localhost): elsewhere the text is there to select.
    navigator.clipboard?.writeText(secret).then(
      () => setCopied("copied"),
      () => setCopied("copy it by hand: select the text"),
    ) ?? setCopied("copy it by hand: select the text");
  return (
    <div class="notice secret" role="status">
      <p>
        <strong>{label}</strong>, shown this once: copy it now to verify webhooks or read the stream elsewhere. This browser keeps it to manage the
        subscription.
      </p>
      <code class="secret-value">{secret}</code>{" "}
      <button type="button" onClick={copy}>
        Copy
      </button>{" "}
      {copied ? <span>{copied}</span> : null}
    </div>
  );
}

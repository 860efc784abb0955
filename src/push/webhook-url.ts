/**
 * @module push/webhook-url
 * A webhook URL checked when a subscription is made, so a URL the guard would refuse at every
 * delivery is a 400 before payment instead of three days of refused retries. The guard runs again
 * at each delivery (push/ssrf.ts): a name may resolve elsewhere by then.
 */
import { CkgError } from "../errors.ts";
import { WebhookTargetRefused, resolveWebhookTarget } from "./ssrf.ts";

export async function checkWebhookUrl(url: string, options: { allowPrivate: boolean }): Promise<void> {
  try {
    await resolveWebhookTarget(url, options);
  } catch (error) {
    if (error instanceof WebhookTargetRefused) {
      throw new CkgError("invalid_request", `webhook_url is refused: ${error.reason}.`, { details: { field: "webhook_url", reason: error.reason } });
    }
    throw new CkgError("invalid_request", `webhook_url cannot be reached: ${(error as Error).message}.`, { details: { field: "webhook_url" } });
  }
}

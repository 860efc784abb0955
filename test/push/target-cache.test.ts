/**
 * Vetted targets kept a while (push/target-cache.ts), with the real guard behind it: a URL is
 * checked and looked up once however many webhooks go to it at once or soon after; after the time
 * to live it is looked up again (a name that moved is followed); a refusal or a failed lookup is
 * never kept.
 */
import { expect, test } from "bun:test";
import { resolveWebhookTarget, WebhookTargetRefused } from "../../src/push/ssrf.ts";
import { TargetCache } from "../../src/push/target-cache.ts";

function counted(answer: () => string) {
  const lookups: string[] = [];
  const lookup = async (host: string) => {
    lookups.push(host);
    const address = answer();
    if (address === "fail") throw new Error("ENOTFOUND");
    return [{ address, family: 4 }];
  };
  return { lookups, resolve: (url: string) => resolveWebhookTarget(url, { allowPrivate: true, lookup }) };
}

test("a URL is looked up once for many webhooks at once and soon after; after its time to live, again", async () => {
  let address = "127.0.0.2";
  const { lookups, resolve } = counted(() => address);
  let clock = 1_000;
  const cache = new TargetCache(resolve, { ttlMs: 50, now: () => clock });
  const targets = await Promise.all(Array.from({ length: 100 }, () => cache.target("http://receiver.test:8080/hook")));
  expect(targets.every((t) => t.address === "127.0.0.2")).toBe(true);
  expect((await cache.target("http://receiver.test:8080/hook")).address).toBe("127.0.0.2");
  expect(lookups).toEqual(["receiver.test"]);
  // Another URL on the same host is its own entry.
  await cache.target("http://receiver.test:8080/other");
  expect(lookups.length).toBe(2);
  address = "127.0.0.3";
  clock += 49;
  expect((await cache.target("http://receiver.test:8080/hook")).address).toBe("127.0.0.2");
  clock += 2; // past the 50 ms time to live
  expect((await cache.target("http://receiver.test:8080/hook")).address).toBe("127.0.0.3");
  expect(lookups.length).toBe(3);
});

test("a refusal or a failed lookup is not kept: the next attempt asks again", async () => {
  let address = "169.254.169.254";
  const { lookups, resolve } = counted(() => address);
  const cache = new TargetCache(resolve);
  await expect(cache.target("http://receiver.test/hook")).rejects.toBeInstanceOf(WebhookTargetRefused);
  address = "fail";
  await expect(cache.target("http://receiver.test/hook")).rejects.toThrow("ENOTFOUND");
  address = "127.0.0.2";
  expect((await cache.target("http://receiver.test/hook")).address).toBe("127.0.0.2");
  expect(lookups.length).toBe(3);
});

/**
 * Read-only access to @bitgo/statics' coin list as plain objects.
 *
 * The package exposes class instances (Erc20Coin, SolCoin, ...) with many
 * optional, class-specific fields; we read them through `Obj` so the
 * extraction tolerates fields that a future release drops or renames.
 */
import { coins } from "@bitgo/statics";
import { isObj, type Obj } from "./common.ts";

let cache: Obj[] | null = null;

/** Every coin/token BitGo defines (mainnet and testnet), in BitGo's order. */
export function bitgoCoins(): Obj[] {
  if (cache) return cache;
  const out: Obj[] = [];
  coins.forEach((c: unknown) => {
    if (isObj(c)) out.push(c);
  });
  cache = out;
  return out;
}

export function bitgoNetwork(coin: Obj): Obj | null {
  const n = coin.network;
  return isObj(n) ? n : null;
}

/** Class name of a BitGo coin ("Erc20Coin", "Erc721Coin", "SolCoin", ...). */
export function bitgoClass(coin: Obj): string {
  const ctor: unknown = Object.getPrototypeOf(coin)?.constructor;
  return typeof ctor === "function" ? ctor.name : "";
}

/** BitGo's feature flags for a coin ("stablecoin", "deprecated", ...). */
export function bitgoFeatures(coin: Obj): ReadonlySet<string> {
  const f = coin.features;
  return new Set(Array.isArray(f) ? f.filter((x): x is string => typeof x === "string") : []);
}

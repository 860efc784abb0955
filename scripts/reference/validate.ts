/**
 * Invariants checked before anything is written, so a package update that
 * breaks an assumption fails the refresh loudly instead of shipping bad data.
 */
import type { AaveMarket } from "./aave.ts";
import type { ChainRecord } from "./chains.ts";
import { EVM_ADDRESS, type OutputFile } from "./common.ts";
import type { ExchangeRecord } from "./exchanges.ts";
import type { TokenRecord } from "./tokens.ts";

function check(ok: boolean, problems: string[], message: string): void {
  if (!ok) problems.push(message);
}

function checkEnvelope(file: string, out: OutputFile<{ key: string; sources: string[] }>, problems: string[]): void {
  const declared = new Set<string>(out.sources.map((s) => s.id));
  const keys = new Set<string>();
  let prev = "";
  for (const r of out.records) {
    check(!keys.has(r.key), problems, `${file}: duplicate key ${r.key}`);
    check(prev < r.key, problems, `${file}: records not sorted at ${r.key}`);
    check(r.sources.length > 0, problems, `${file}: ${r.key} has no sources`);
    for (const s of r.sources) check(declared.has(s), problems, `${file}: ${r.key} cites undeclared source ${s}`);
    keys.add(r.key);
    prev = r.key;
  }
}

export function validate(
  chains: OutputFile<ChainRecord>,
  tokens: OutputFile<TokenRecord>,
  exchanges: OutputFile<ExchangeRecord>,
  aave: OutputFile<AaveMarket>,
): string[] {
  const problems: string[] = [];
  checkEnvelope("chains.json", chains, problems);
  checkEnvelope("tokens.json", tokens, problems);
  checkEnvelope("exchanges.json", exchanges, problems);
  checkEnvelope("aave-markets.json", aave, problems);

  const chainKeys = new Set(chains.records.map((c) => c.key));
  for (const c of chains.records) {
    if (c.parent !== null) check(chainKeys.has(c.parent), problems, `chains.json: ${c.key} parent ${c.parent} missing`);
    check((c.parent === null) === (c.layer === "L1"), problems, `chains.json: ${c.key} layer ${c.layer} vs parent ${String(c.parent)}`);
  }
  const tokenKeys = new Set(tokens.records.map((t) => t.key));
  for (const t of tokens.records) {
    check(t.name !== "" && t.symbol !== "", problems, `tokens.json: ${t.key} without name/symbol`);
    check(t.deployments.length > 0, problems, `tokens.json: ${t.key} without deployments`);
    for (const d of t.deployments) {
      check(chainKeys.has(d.chain), problems, `tokens.json: ${t.key} deployed on unknown chain ${d.chain}`);
      if (d.address !== null && d.chain.startsWith("eip155:")) check(EVM_ADDRESS.test(d.address), problems, `tokens.json: ${t.key} bad address ${d.address}`);
    }
  }
  for (const m of aave.records) {
    check(chainKeys.has(m.chain), problems, `aave-markets.json: ${m.key} on unknown chain ${m.chain}`);
    for (const a of m.assets) if (a.token !== null) check(tokenKeys.has(a.token), problems, `aave-markets.json: ${m.key} asset ${a.symbol} -> missing token ${a.token}`);
  }
  return problems;
}

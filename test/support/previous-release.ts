/**
 * The previous release of ckg, run from its source: the first release CHANGELOG.md records with its
 * commit, checked out in a git worktree of this clone (the upgrade test, scripts/bench/migration.ts).
 * It gets this checkout's node_modules when they hold every package its package-lock.json names at
 * the same version, else its own (`npm ci`).
 */
import { readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";

const REPO = join(import.meta.dir, "..", "..");

export interface Release {
  version: string;
  commit: string;
}

/** The first section of CHANGELOG.md that names a commit: `## x.y.z ... commit <sha>`. */
export function previousRelease(): Release {
  const match = /^## (\d+\.\d+\.\d+)\b.*\bcommit ([0-9a-f]{7,40})\b/m.exec(readFileSync(join(REPO, "CHANGELOG.md"), "utf8"));
  if (!match) throw new Error("CHANGELOG.md records no release with its commit ('## x.y.z ... commit <sha>')");
  return { version: match[1]!, commit: match[2]! };
}

function git(...args: string[]): string {
  const result = Bun.spawnSync(["git", "-C", REPO, ...args], { stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr.toString()}`);
  return result.stdout.toString().trim();
}

/** Checks `release` out at `worktree` (a path that does not exist yet), ready to run. */
export function checkOut(release: Release, worktree: string): void {
  try {
    git("rev-parse", "--verify", "--quiet", `${release.commit}^{commit}`);
  } catch {
    throw new Error(`the commit of ckg ${release.version} (${release.commit}, CHANGELOG.md) is not in this clone: fetch it (git fetch --unshallow origin) first`);
  }
  git("worktree", "prune"); // forgets the worktrees of runs that died before removing theirs
  git("worktree", "add", "--detach", worktree, release.commit);
  if (installedCovers(worktree)) symlinkSync(join(REPO, "node_modules"), join(worktree, "node_modules"));
  else {
    // `npm install`, not `npm ci`: this npm's `ci` refuses an older release's lockfile that left out
    // entries it now expects (platform-specific optional packages); install fills them in and keeps
    // every version the lockfile does state.
    const installed = Bun.spawnSync(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: worktree, stderr: "pipe" });
    if (installed.exitCode !== 0) throw new Error(`npm install for ckg ${release.version} failed: ${installed.stderr.toString()}`);
  }
}

/**
 * True when every package the release's lockfile installs is installed here at the same version
 * (this checkout may have more): the release then runs on this checkout's node_modules as on its own.
 */
function installedCovers(worktree: string): boolean {
  type Lock = { packages: Record<string, { version?: string }> };
  const lock = (dir: string) => JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8")) as Lock;
  const ours = lock(REPO).packages;
  return Object.entries(lock(worktree).packages).every(([path, entry]) => path === "" || ours[path]?.version === entry.version);
}

export function removeCheckout(worktree: string): void {
  git("worktree", "remove", "--force", worktree);
}

/** The command line of the release's ckg in `worktree`. */
export function releaseCkg(worktree: string, ...args: string[]): string[] {
  return [process.execPath, join(worktree, "src", "main.ts"), ...args];
}

/** Runs the release's ckg to its end; throws with its stderr when it fails. */
export function runRelease(worktree: string, args: string[], env: Record<string, string> = {}): void {
  const result = Bun.spawnSync(releaseCkg(worktree, ...args), { cwd: worktree, env: { ...process.env, ...env }, stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`ckg ${args.join(" ")} (previous release) exited ${result.exitCode}: ${result.stderr.toString()}`);
}

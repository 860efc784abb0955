/**
 * `npm run test:unit`: the fast lane, every test file that needs no world, no process and no engine.
 * `npm test` still runs every file (the whole test/ tree).
 *
 * The rule, read from the code so a new test file finds its lane by itself: a file is left out when
 * it, or a test module it imports (test/support/fixture.ts, test/support/server.ts, ...), either
 * - starts a process: `Bun.spawn`, `Bun.spawnSync`, `node:child_process`, Bun's `$` shell (ckg
 *   itself, the built executable, anvil, PostgreSQL, Virtuoso, git, the MCP Inspector), or
 * - builds a world or a data directory: `generateWorld(`, `buildSnapshot(` (the fixture world), or
 * - needs an engine the machine may lack or a browser: test/support/engines.ts, test/support/browser.ts.
 * Everything else (real DuckDB, SQLite, Oxigraph and HTTP in the test's own process) is in the lane.
 *
 *   bun scripts/test-unit.ts            run the lane (extra arguments go to `bun test`)
 *   bun scripts/test-unit.ts --list     print the lane's files
 *   bun scripts/test-unit.ts --why      print every file left out, and why
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { Glob } from "bun";

const ROOT = resolve(import.meta.dir, "..");
const TEST = join(ROOT, "test");

const REASONS: [RegExp, string][] = [
  [/\bBun\.spawn(Sync)?\b|\bBun\.\$|["']node:child_process["']|import\s*\{[^}]*\$[^}]*\}\s*from\s*["']bun["']/, "starts a process"],
  [/\b(generateWorld|buildSnapshot)\(/, "builds a world"],
];
const NEEDS: Record<string, string> = {
  "test/support/engines.ts": "needs an engine the machine may lack",
  "test/support/browser.ts": "needs a browser",
};

const seen = new Map<string, string | null>();

/** Why `file` (absolute) is not a unit test, through itself or the test modules it imports; null when it is. */
function heavy(file: string): string | null {
  const known = seen.get(file);
  if (known !== undefined) return known;
  seen.set(file, null); // an import cycle adds nothing
  const name = relative(ROOT, file);
  const text = readFileSync(file, "utf8");
  let why: string | null = NEEDS[name] ?? REASONS.find(([pattern]) => pattern.test(text))?.[1] ?? null;
  if (why === null) {
    for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+\.ts)["']/g)) {
      const target = resolve(dirname(file), spec!);
      if (!target.startsWith(TEST)) continue;
      const through = heavy(target);
      if (through !== null) {
        why = `${through.split(" (through ")[0]} (through ${relative(ROOT, target)})`;
        break;
      }
    }
  }
  seen.set(file, why);
  return why;
}

const files = [...new Glob("**/*.test.ts").scanSync(TEST)].map((f) => join(TEST, f)).sort();
const lane = files.filter((f) => heavy(f) === null);
const args = process.argv.slice(2);

if (args[0] === "--list") {
  for (const f of lane) console.log(relative(ROOT, f));
} else if (args[0] === "--why") {
  for (const f of files) if (heavy(f) !== null) console.log(`${relative(ROOT, f)}: ${heavy(f)}`);
  console.log(`${lane.length} of ${files.length} test files are in the fast lane`);
} else {
  // `./` makes each a path, not a filter that would also match longer paths containing it.
  const run = Bun.spawnSync([process.execPath, "test", "--timeout", "120000", ...args, ...lane.map((f) => `./${relative(ROOT, f)}`)], {
    cwd: ROOT,
    stdio: ["inherit", "inherit", "inherit"],
  });
  process.exit(run.exitCode ?? 1);
}

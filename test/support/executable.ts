/**
 * The single executable (`npm run build`, scripts/build.ts into dist/ckg), built once per test run
 * by whichever test asks first: each test that runs the executable asks for it, so none depends on
 * another test having built it before.
 */
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..", "..");

export interface Build {
  /** dist/ckg */
  binary: string;
  exitCode: number;
  stderr: string;
}

let build: Promise<Build> | undefined;

export function builtExecutable(): Promise<Build> {
  build ??= (async () => {
    const proc = Bun.spawn([process.execPath, join(root, "scripts", "build.ts")], { cwd: root, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    const [stderr, exitCode] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    return { binary: join(root, "dist", "ckg"), exitCode, stderr };
  })();
  return build;
}

/** dist/ckg, built; throws with the build's errors when it could not be built. */
export async function executable(): Promise<string> {
  const { binary, exitCode, stderr } = await builtExecutable();
  if (exitCode !== 0) throw new Error(`npm run build failed (${exitCode}): ${stderr}`);
  return binary;
}

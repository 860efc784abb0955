/**
 * The engines some tests need and the machine may lack: PostgreSQL 15, Virtuoso 7, Chromium,
 * Python's SPARQLWrapper and rdflib, a tmpfs to fill, ptrace for strace. `.ci/run` provides them all and sets CKG_REQUIRE_ENGINES=1:
 * there a missing one fails the test file that needs it, since a skip would pass CI with the test
 * never run. Elsewhere (a developer's machine) its tests are skipped, and the run says which and
 * why, once per engine and reason.
 */

const warned = new Set<string>();

const enginesRequired = (): boolean => process.env.CKG_REQUIRE_ENGINES === "1";

/**
 * Whether `engine` is here for the tests of `what`. Missing: throws under CKG_REQUIRE_ENGINES=1,
 * else warns once and returns false (the caller skips). `remedy` says how to get it.
 */
export function engineAvailable(engine: string, present: boolean, what: string, remedy: string): boolean {
  if (present) return true;
  if (enginesRequired()) throw new Error(`${engine} is not available, and CKG_REQUIRE_ENGINES=1 requires it for ${what} (${remedy})`);
  const key = `${engine}\n${what}`;
  if (!warned.has(key)) {
    warned.add(key);
    console.warn(`${engine} is not available: ${what} skipped (${remedy})`);
  }
  return false;
}

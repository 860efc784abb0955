/**
 * `npm run docs`: writes the reference pages generated from the code: docs/api.md (the operations
 * table and the server's list of routes), docs/configuration.md (the settings table) and docs/cli.md
 * (each command's --help and the exit codes). Each page is the same bytes on every machine: no
 * dates, no paths, the code's own order. test/docs/generated.test.ts renders every page in memory
 * with `renderPage` and fails, naming the page and this command, when the committed file differs.
 *
 * @example
 * const text = await renderPage("docs/cli.md"); // what `npm run docs` would write there
 */
import { renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { API_PAGE, apiPage } from "./docs/api.ts";
import { CLI_PAGE, cliPage } from "./docs/cli.ts";
import { CONFIGURATION_PAGE, configurationPage } from "./docs/configuration.ts";
import { apiSource } from "./docs/server.ts";

export const ROOT = resolve(import.meta.dir, "..");

/** Every generated page, by its path from the repository's root, and how its text is made. */
export const GENERATED_PAGES: Readonly<Record<string, () => Promise<string>>> = {
  [API_PAGE]: async () => apiPage(await apiSource()),
  [CONFIGURATION_PAGE]: configurationPage,
  [CLI_PAGE]: async () => cliPage(),
};

/** What `npm run docs` writes to a page now. */
export async function renderPage(path: string): Promise<string> {
  const render = GENERATED_PAGES[path];
  if (!render) throw new Error(`${path} is not a generated page; they are ${Object.keys(GENERATED_PAGES).join(", ")}`);
  return render();
}

if (import.meta.main) {
  for (const path of Object.keys(GENERATED_PAGES)) {
    const text = await renderPage(path);
    const target = join(ROOT, path);
    // Written beside, then renamed into place: a failed run leaves the old page whole.
    writeFileSync(`${target}.tmp`, text);
    renameSync(`${target}.tmp`, target);
    console.log(`wrote ${path} (${text.split("\n").length - 1} lines)`);
  }
}

/**
 * data/reference/ATTRIBUTION.md and data/reference/licenses/<package>.txt.
 *
 * Every licence we rely on (MIT, ISC, Apache-2.0) requires the copyright and
 * licence notice to travel with copies of the material, so each package's
 * LICENSE file is copied verbatim next to the extracted data.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { cmp, OUT_DIR, writeText, type LoadedSource } from "./common.ts";

/** The MIT licence body, used only when a package declares MIT but ships no LICENSE file. */
const MIT_BODY = `Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`;

interface PackageEntry {
  pkg: string;
  version: string;
  license: string;
  homepage: string | null;
  author: string | null;
  licenseFile: string | null;
  taken: string[];
  files: string[];
}

/** "@bitgo/statics" -> "bitgo-statics". */
export function licenseFileName(pkg: string): string {
  return `${pkg.replace(/^@/, "").replace(/\//g, "-")}.txt`;
}

function copyrightLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => /^copyright\s+(\(c\)|©|\d{4})/i.test(l));
}

function licenseText(e: PackageEntry): { text: string; holder: string } {
  if (e.licenseFile) {
    const text = readFileSync(e.licenseFile, "utf8");
    const lines = copyrightLines(text);
    return { text, holder: lines.length > 0 ? lines.join("; ") : `(no copyright line in LICENSE; package.json author: ${e.author ?? "none"})` };
  }
  const who = e.author ?? "the package authors";
  const note =
    `${e.pkg}@${e.version} declares "license": "${e.license}" in its package.json but ships no LICENSE file.\n` +
    `package.json author: ${e.author ?? "(none)"}; homepage: ${e.homepage ?? "(none)"}.\n` +
    (e.license === "MIT"
      ? `The package gives no copyright line; its package.json author is ${who}.\nThe standard MIT licence text follows.\n\nMIT License\n\n${MIT_BODY}`
      : "");
  return { text: note, holder: `${who} (package.json author; no LICENSE file shipped)` };
}

export function writeAttribution(used: { source: LoadedSource; file: string }[]): string[] {
  const byPkg = new Map<string, PackageEntry>();
  for (const { source, file } of used) {
    const i = source.info;
    const e: PackageEntry = byPkg.get(i.package) ?? {
      pkg: i.package,
      version: i.version,
      license: i.license,
      homepage: i.homepage,
      author: source.author,
      licenseFile: source.licenseFile,
      taken: [],
      files: [],
    };
    if (!e.taken.includes(source.taken)) e.taken.push(source.taken);
    if (!e.files.includes(file)) e.files.push(file);
    byPkg.set(i.package, e);
  }

  const written: string[] = [];
  const md: string[] = [
    "# Reference data attribution",
    "",
    "The JSON files in this directory are extracted by `scripts/refresh-reference-data.ts` from the",
    "npm packages below (installed as devDependencies; read offline). The data was filtered (mainnets",
    "only, fungible tokens only), merged across packages and re-shaped into our own record format;",
    "it is not a verbatim copy of any package. Each package's licence text is in `licenses/`.",
    "",
  ];
  for (const e of [...byPkg.values()].sort((a, b) => cmp(a.pkg, b.pkg))) {
    const { text, holder } = licenseText(e);
    const licFile = `licenses/${licenseFileName(e.pkg)}`;
    writeText(licFile, text);
    written.push(licFile);
    md.push(
      `## ${e.pkg} ${e.version}`,
      "",
      `- Licence: ${e.license} (full text: \`${licFile}\`${e.licenseFile ? "" : "; no LICENSE file in the package, see note there"})`,
      `- Copyright: ${holder}`,
      `- Author (package.json): ${e.author ?? "(none)"}`,
      `- Homepage: ${e.homepage ?? "(none)"}`,
      `- Used for: ${e.files.sort(cmp).join(", ")}`,
      `- Taken: ${e.taken.join(" ")}`,
      "",
    );
  }
  writeText("ATTRIBUTION.md", md.join("\n"));
  written.push("ATTRIBUTION.md");
  removeStaleLicenses(written);
  return written;
}

/** A package that is no longer used must not leave its licence file behind. */
function removeStaleLicenses(written: string[]): void {
  const dir = join(OUT_DIR, "licenses");
  if (!existsSync(dir)) return;
  for (const f of readdirSync(dir)) {
    if (!written.includes(`licenses/${f}`)) rmSync(join(dir, f));
  }
}

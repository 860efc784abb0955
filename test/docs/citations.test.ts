/**
 * Citations point inside the repository. The code may cite the contract (docs/spec.md §N) and the
 * decisions (docs/decisions/NNNN-slug.md), and every citation must name a section or a file that
 * exists; it may not cite an issue number, or a spec kept outside the repository (interface-spec.md,
 * decisions.md, the shared DESIGN or STYLE notes): a reader of the code has none of those. Where
 * the reason matters, the comment says it in a few words instead.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");
const SELF = "test/docs/citations.test.ts";

/** Text files under a folder, as repository paths (binary files, with a NUL byte, are left out). */
function textFiles(folder: string, pattern = "**/*"): { path: string; text: string }[] {
  return [...new Bun.Glob(`${folder}/${pattern}`).scanSync(root)]
    .sort()
    .filter((path) => path !== SELF)
    .map((path) => ({ path, text: readFileSync(join(root, path), "utf8") }))
    .filter(({ text }) => !text.includes("\u0000"));
}

/** Section numbers of docs/spec.md, from its headings (`## 2. ...`, `### 2.4 ...`). */
function specSections(spec: string): Set<string> {
  return new Set([...spec.matchAll(/^#{2,3} (\d+(?:\.\d+)*)\.? /gm)].map((m) => m[1]!));
}

/** What a line may not cite: an issue number, or a spec file that is not in docs/. */
const FORBIDDEN: { rule: string; pattern: RegExp }[] = [
  { rule: "cites an issue number (say the reason instead)", pattern: /\bissues?\s*#?\s*\d+/i },
  { rule: "cites interface-spec (docs/spec.md is the contract)", pattern: /interface-spec/i },
  { rule: "cites decisions.md (cite a file of docs/decisions/)", pattern: /\bdecisions\.md\b/i },
  { rule: "cites a spec section outside docs/spec.md (write docs/spec.md §N)", pattern: /\bspec\s+§?\d+(\.\d+)*/i },
  { rule: "cites a spec.md that is not docs/spec.md", pattern: /(?<!docs\/)\bspec\.md\b/ },
  { rule: "cites a note kept outside the repository", pattern: /shared\/(spec|DESIGN|STYLE)|\bshared DESIGN\b|\b(DESIGN|STYLE)\.md\b/ },
];

/**
 * Every docs/spec.md section a line cites: `docs/spec.md §4.6-4.8, §4.10 and §4.11` gives 4.6, 4.8,
 * 4.10, 4.11. With `bare`, a section sign alone cites the spec too (the code, the spec and the
 * decisions use it for nothing else; another page may cite an RFC's).
 */
function citedSections(line: string, bare: boolean): string[] {
  const cited: string[] = [];
  for (const m of line.matchAll(/docs\/spec\.md((?:\s*(?:,|and|;)?\s*§\d+(?:\.\d+)*(?:\s*[-–]\s*\d+(?:\.\d+)*)?)+)/g)) {
    cited.push(...[...m[1]!.matchAll(/\d+(?:\.\d+)*/g)].map((n) => n[0]));
  }
  if (bare) for (const m of line.matchAll(/§(\d+(?:\.\d+)*)/g)) cited.push(m[1]!);
  return [...new Set(cited)];
}

/** Every docs/decisions file a line names (`docs/decisions/` alone names the folder). */
function citedDecisions(line: string): string[] {
  return [...line.matchAll(/docs\/decisions\/([\w.-]*)/g)].map((m) => `docs/decisions/${m[1]!.replace(/\.+$/, "")}`);
}

interface Finding {
  where: string;
  problem: string;
}

/** What is wrong with the citations of one file's text; `forbid` applies FORBIDDEN too. */
function checkText(path: string, text: string, sections: Set<string>, forbid: boolean): Finding[] {
  const findings: Finding[] = [];
  const bare = !path.endsWith(".md") || path === "docs/spec.md" || path.startsWith("docs/decisions/");
  text.split("\n").forEach((line, i) => {
    const where = `${path}:${i + 1}`;
    if (forbid) for (const { rule, pattern } of FORBIDDEN) if (pattern.test(line)) findings.push({ where, problem: rule });
    for (const section of citedSections(line, bare)) if (!sections.has(section)) findings.push({ where, problem: `docs/spec.md has no §${section}` });
    for (const file of citedDecisions(line)) if (!existsSync(join(root, file))) findings.push({ where, problem: `${file} does not exist` });
  });
  return findings;
}

const spec = readFileSync(join(root, "docs/spec.md"), "utf8");
const sections = specSections(spec);

describe("citations in the code", () => {
  test("docs/spec.md numbers its sections as the code cites them", () => {
    for (const n of ["1", "2.1", "2.3", "2.4", "3", "4.1", "4.7", "4.12", "5.2", "5.3", "7", "8", "9"]) expect(sections).toContain(n);
  });

  test("src/ and scripts/ cite no issue number and no spec outside docs/, and every cited section and decision exists", () => {
    const findings = ["src", "scripts"].flatMap((folder) => textFiles(folder).flatMap(({ path, text }) => checkText(path, text, sections, true)));
    expect(findings).toEqual([]);
  });

  test("every docs/spec.md section and docs/decisions file cited by the tests and the documentation exists", () => {
    const pages = ["README.md", "CONTRIBUTING.md"].filter((path) => existsSync(join(root, path)));
    const files = [...textFiles("test"), ...textFiles("docs", "**/*.md"), ...pages.map((path) => ({ path, text: readFileSync(join(root, path), "utf8") }))];
    const findings = files.flatMap(({ path, text }) => checkText(path, text, sections, false));
    expect(findings).toEqual([]);
  });

  test("the rules catch what they are for", () => {
    const bad = [
      "// Replicas on several machines (issue 20): a running scan",
      " * Time-series benchmark (issues 3, 19 and 36). Run by hand:",
      "  // Issue 36: one entity's series",
      " * The signal types of spec 2.4, every slug of it",
      " * The documented error body (decisions.md):",
      "/** The interface version of interface-spec.md */",
      " * (shared DESIGN, issue 49).",
    ];
    for (const line of bad) expect(checkText("x.ts", line, sections, true).length).toBeGreaterThan(0);
    const missing = ["docs/spec.md §12.9", "docs/spec.md §4.6-4.99", "docs/decisions/9999-nothing.md", "(see §2.9)"];
    for (const line of missing) expect(checkText("x.ts", line, sections, false).length).toBeGreaterThan(0);
    const good = [
      " * The signal routes of docs/spec.md §4.6-4.8, §4.10 and §4.11: per-type lists",
      " * (docs/decisions/0009-score-and-severity-bands.md): each type's",
      " * the 0..100 score (docs/decisions/).",
      "    if (issues.length) throw new Error(parsed.error.issues[0].message);",
    ];
    for (const line of good) expect(checkText("x.ts", line, sections, true)).toEqual([]);
  });
});

describe("docs/decisions", () => {
  const folder = join(root, "docs/decisions");
  const files = [...new Bun.Glob("*.md").scanSync(folder)].filter((f) => f !== "README.md").sort();

  test("one file per decision, numbered without gaps or repeats, each with context, decision and consequences", () => {
    expect(files.length).toBeGreaterThan(0);
    files.forEach((file, i) => {
      expect(file).toMatch(/^\d{4}-[a-z0-9]+(-[a-z0-9]+)*\.md$/);
      expect(Number(file.slice(0, 4))).toBe(i + 1);
      const text = readFileSync(join(folder, file), "utf8");
      expect(text).toStartWith(`# ${Number(file.slice(0, 4)).toString().padStart(4, "0")}. `);
      for (const heading of ["## Context", "## Decision", "## Consequences"]) expect(text).toContain(`\n${heading}\n`);
    });
  });

  test("the index lists every decision", () => {
    const index = readFileSync(join(folder, "README.md"), "utf8");
    for (const file of files) expect(index).toContain(`](${file})`);
  });
});

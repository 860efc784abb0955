/**
 * No source file over 300 lines: a longer module is doing more than one thing; split it
 * by what it does. Prints each offender and exits 1. Part of `npm run lint`. A generated file (its
 * first line says `@generated`) is not written by hand and is left out.
 */
import { Glob } from "bun";

const MAX_LINES = 300;
const offenders: string[] = [];
for await (const path of new Glob("src/**/*.ts").scan(".")) {
  const text = await Bun.file(path).text();
  if (text.startsWith("// @generated")) continue;
  const lines = text.split("\n").length - 1;
  if (lines > MAX_LINES) offenders.push(`${path}: ${lines} lines`);
}
if (offenders.length > 0) {
  console.error(`Source files over ${MAX_LINES} lines:\n  ${offenders.sort().join("\n  ")}`);
  process.exit(1);
}
console.log(`no source file over ${MAX_LINES} lines`);

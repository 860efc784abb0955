/**
 * @module exit-codes
 * What the exit code of a ckg process means: the one table main.ts exits by, the server reads its
 * children's codes by (server/), and docs/cli.md shows (generated from it).
 */
export const EXIT_CODES = [
  { name: "ok", code: 0, meaning: "done; also `ckg serve` stopped by SIGTERM or SIGINT, and `ckg mcp` once its client closes stdin" },
  { name: "failure", code: 1, meaning: "it failed: an error (said on stderr), an ingest or import that published nothing, a scan that failed or scanned only some types" },
  { name: "usage", code: 2, meaning: "nothing was started: an unknown command or option, a bad argument, or a configuration problem (every one listed, each with its origin)" },
  { name: "noSnapshot", code: 3, meaning: "the data directory holds no snapshot yet (`ckg build`, `ckg ingest`, `ckg import` or `ckg serve` makes one)" },
  { name: "newerFormat", code: 4, meaning: "nothing was changed: a newer ckg wrote the data directory (its `format.json`, a snapshot's manifest or the state store records a format newer than this ckg reads); run that release or a later one" },
] as const;

type Entry = (typeof EXIT_CODES)[number];

/** The codes by name: `EXIT.usage` is 2. */
export const EXIT = Object.fromEntries(EXIT_CODES.map((entry) => [entry.name, entry.code])) as { readonly [E in Entry as E["name"]]: E["code"] };

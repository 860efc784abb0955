/**
 * The map of src/: peer groups, and the edges between them that are forbidden, each by name with
 * the reason (CONTRIBUTING.md, "Layer rules"; docs/architecture.md, "Layers"). Highest first:
 *
 *   entry        main.ts, cli/      the executable and its commands
 *   supervisor   supervisor/        the running server: lifecycle, scheduler, assembly of HTTP and MCP
 *   transports   api/, mcp/         HTTP and MCP, side by side on the operations
 *   operations   operations/        the operations table, and what the transports read through it
 *   domain       payments/ and the folders of DOMAIN_ORDER
 *   foundation   store/, config/, the base files
 *   console      console/           browser code, apart
 *
 * A group may import the groups below it unless a rule forbids the edge; no import cycle anywhere.
 * `npm run lint` checks it; CI runs it.
 */
const BASE_FILES = ["errors.ts", "exit-codes.ts", "log.ts", "time.ts", "rng.ts", "sorted.ts", "version.ts", "runtime.ts", "assets.d.ts"];

/** The domain, highest first: a folder imports only folders on lower lines (folders on one line never import each other). */
const DOMAIN_ORDER = [
  ["ingest"],
  ["snapshot", "backup"],
  ["push"],
  ["backtest"],
  ["signals"],
  ["search"],
  ["demo"],
  ["model"],
  ["graph"],
  ["timeseries"],
  ["entities"],
];

/** The foundation, highest first, in the same way; pipeline.ts (a run as named stages) logs its stages. */
const FOUNDATION_ORDER = [["store"], ["config"], ["pipeline.ts"], BASE_FILES];

const GROUPS = {
  entry: ["main.ts", "cli"],
  supervisor: ["supervisor"],
  transports: ["api", "mcp"],
  operations: ["operations"],
  domain: ["payments", ...DOMAIN_ORDER.flat()],
  foundation: FOUNDATION_ORDER.flat(),
  console: ["console"],
};

/**
 * What the CLI may import of the supervisor, the transports, the operations and the domain: the
 * entry points the server goes through itself. The server runs `ckg build`, `ckg scan`,
 * `ckg ingest` and `ckg __graph-worker` as child processes, so those commands' entry points are
 * the server's own; the foundation (store/, config/, base files) is open to the CLI.
 */
const CLI_ENTRY_POINTS = [
  "supervisor", // the server itself: serve, mcp, backup --verify, the rules a start checks
  "snapshot/build.ts", // build, an ingest's base world, and the settings a build takes
  "snapshot/export.ts", // export
  "snapshot/keys.ts", // keys, and the trusted keys of snapshot verify|install|pull
  "snapshot/pack.ts", // snapshot pack
  "snapshot/unpack.ts", // snapshot verify: the checks an install makes
  "snapshot/install.ts", // snapshot install, and pull's
  "snapshot/pull.ts", // snapshot pull
  "snapshot/duplicates.ts", // stats --duplicates
  "backup/take.ts", // backup
  "backup/restore.ts", // restore
  "backtest/run.ts", // backtest: the replay and the signal types it is given
  "backtest/labels.ts", // backtest --labels
  "backtest/markdown.ts", // backtest's report as Markdown
  "backtest/recorded-history.ts", // backtest --history: how the recorded history becomes tables
  "signals/quality.ts", // backtest --publish: the quality report the server reads
  "signals/scan-data-dir.ts", // scan: the signal scans the scheduler runs
  "ingest/ingest-data-dir.ts", // ingest, import: the ingests the scheduler runs
  "graph/graph-process.ts", // __graph-worker; sparql runs the same store in-process
  "graph/sparql.ts", // sparql: the sparql operation's query checks and answer shapes
];

const path = (name) => (name.endsWith(".ts") ? `^src/${name.replaceAll(".", "\\.")}$` : `^src/${name}/`);
const paths = (...names) => names.flat(Infinity).map(path);
const rule = (name, comment, from, to) => ({ name, comment, severity: "error", from, to });

/** One rule per line of an order: a module imports nothing on a higher line, nor another folder (or file) of its own line. */
const ordered = (name, order) =>
  order
    .map((line, depth) => {
      const higher = order.slice(0, depth).flat();
      const forbidden = [...higher, ...(line.length > 1 ? line : [])];
      return rule(
        name,
        `${line.join(" | ")} ${line.length > 1 ? "import" : "imports"} nothing on a line above ${line.length > 1 ? "theirs, nor each other" : "its own"}: ${higher.join(", ")}`,
        { path: `^src/(${line.map((n) => n.replaceAll(".", "\\.")).join("|")})(/|$)` },
        { path: paths(forbidden), pathNot: "^src/$1(/|$)" },
      );
    })
    .filter((r) => r.to.path.length > 0);

/** The groups listed before `group` in GROUPS. */
const above = (group) => paths(Object.keys(GROUPS).slice(0, Object.keys(GROUPS).indexOf(group)).map((g) => GROUPS[g]));
const domainButPayments = GROUPS.domain.filter((name) => name !== "payments");

module.exports = {
  forbidden: [
    rule("no-circular", "an import cycle, even inside a folder", {}, { circular: true }),
    rule("unlayered", "every module of src/ belongs to a group of .dependency-cruiser.cjs (this one imports)", { path: "^src/", pathNot: paths(Object.values(GROUPS)) }, {}),
    rule("unlayered", "every module of src/ belongs to a group of .dependency-cruiser.cjs (this one is imported)", { path: "^src/" }, { path: "^src/", pathNot: paths(Object.values(GROUPS)) }),
    rule("croner-in-supervisor", "scheduling is the supervisor's (src/supervisor/): croner is imported nowhere else", { path: "^src/", pathNot: "^src/supervisor/" }, { path: "node_modules/croner/" }),
    rule(
      "entry-on-top",
      "nothing imports main.ts or cli/ but they themselves: the server runs a command as a child process (supervisor/spawn.ts), never by import",
      { path: "^src/", pathNot: paths(GROUPS.entry) },
      { path: paths(GROUPS.entry) },
    ),
    rule("supervisor-under-entry", "only main.ts and cli/ import supervisor/: a command starts the server", { path: "^src/", pathNot: paths(GROUPS.entry, GROUPS.supervisor) }, { path: paths(GROUPS.supervisor) }),
    rule("transports-apart", "api/ and mcp/ never import each other: both sit on the operations, and the supervisor mounts MCP on the HTTP server", { path: "^src/(api|mcp)/" }, { path: "^src/(api|mcp)/", pathNot: "^src/$1/" }),
    rule(
      "transports-through-operations",
      "api/ and mcp/ reach the domain and the stored state only through operations/ (the table, the context, and what it exposes for streams, resources and the SPARQL protocol) " +
        "and payments/ (the gate they render): HTTP and MCP then answer alike, and a domain module changes without a transport knowing",
      { path: paths(GROUPS.transports) },
      { path: paths(domainButPayments, "store") },
    ),
    rule("operations-not-up", "operations/ never imports a transport, the supervisor or the CLI: it is what they call", { path: paths(GROUPS.operations) }, { path: above("operations") }),
    rule(
      "cli-through-entry-points",
      "a command reaches the server, the operations and the domain only through the entry points the server itself uses (CLI_ENTRY_POINTS): a command and the server run the same code",
      { path: "^src/cli/" },
      { path: paths(GROUPS.supervisor, GROUPS.transports, GROUPS.operations, GROUPS.domain), pathNot: paths(CLI_ENTRY_POINTS) },
    ),
    rule("domain-not-up", "the domain never imports operations/, a transport, the supervisor or the CLI: it knows nothing of who calls it", { path: paths(GROUPS.domain) }, { path: above("domain") }),
    rule("payments-apart", "payments/ (x402) imports no other domain folder: the operations price, the transports render, the supervisor assembles", { path: "^src/payments/" }, { path: paths(domainButPayments) }),
    rule("payments-apart", "no other domain folder imports payments/: charging is the edges' business, never a data step's", { path: paths(domainButPayments) }, { path: "^src/payments/" }),
    ...ordered("domain-order", DOMAIN_ORDER),
    rule("foundation-not-up", "store/, config/ and the base files import nothing above the foundation: every group may use them", { path: paths(GROUPS.foundation) }, { path: above("foundation") }),
    ...ordered("foundation-order", FOUNDATION_ORDER),
    rule("console-apart", "console/ runs in the browser: it imports nothing of the server, which it reaches through the public API", { path: "^src/console/" }, { path: "^src/", pathNot: "^src/console/" }),
    rule("console-apart", "only api/console-files.ts imports console/: it serves the console's built files", { path: "^src/", pathNot: ["^src/console/", "^src/api/console-files\\.ts$"] }, { path: "^src/console/" }),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^(test|scripts)/" },
  },
};

/**
 * The layers of src/, highest first (README, "Development"): a module may import its own folder or any
 * folder below its own, never one above it, and folders on one line never import each other (HTTP
 * and MCP both sit on the operations). No import cycles, not even inside a folder. croner (the
 * scheduler) is the supervisor's alone.
 * `npm run lint` checks it; CI runs it.
 */
const LAYERS = [
  ["main.ts"],
  ["cli"],
  ["supervisor"],
  ["api", "mcp"],
  ["operations"],
  ["payments"],
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
  ["store"],
  ["config"],
  ["errors.ts", "exit-codes.ts", "log.ts", "time.ts", "rng.ts", "sorted.ts", "version.ts", "runtime.ts", "assets.d.ts"],
  // The web console runs in the browser: it reaches the server through the public API only.
  ["console"],
];

const path = (name) => (name.endsWith(".ts") ? `^src/${name.replace(".", "\\.")}$` : `^src/${name}/`);

const upward = LAYERS.flatMap((layer, depth) =>
  layer.map((name) => {
    const above = LAYERS.slice(0, depth).flat();
    const beside = layer.filter((other) => other !== name);
    return {
      name: `layer-${name.replace(".ts", "")}`,
      comment: `src/${name} is below ${above.join(", ") || "nothing"}${beside.length ? ` and beside ${beside.join(", ")}` : ""}: it may not import them`,
      severity: "error",
      from: { path: path(name) },
      to: { path: [...above, ...beside].map(path) },
    };
  }),
).filter((rule) => rule.to.path.length > 0);

const listed = LAYERS.flat().map(path);

module.exports = {
  forbidden: [
    { name: "no-circular", comment: "an import cycle", severity: "error", from: {}, to: { circular: true } },
    {
      name: "unlayered",
      comment: "every module of src/ belongs to a layer of .dependency-cruiser.cjs",
      severity: "error",
      from: { path: "^src/", pathNot: listed },
      to: {},
    },
    {
      name: "croner-in-supervisor",
      comment: "scheduling is the supervisor's (src/supervisor/): croner is imported nowhere else",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/supervisor/" },
      to: { path: "node_modules/croner/" },
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^(test|scripts)/" },
  },
};

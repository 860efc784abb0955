/**
 * @module cli/sparql
 * `ckg sparql`: run one read-only SPARQL query on the live snapshot of a data directory, without
 * a server, and print the JSON answer (the same shape as POST /api/sparql).
 */
import { COMMAND_SETTINGS } from "../config/commands.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "../log.ts";
import { type Command, UsageError } from "./command.ts";

export const sparql: Command = {
  name: "sparql",
  summary: "Run a read-only SPARQL query (SELECT, ASK, CONSTRUCT, DESCRIBE) on the data directory's live snapshot and print JSON.",
  usage: "[options] <query>",
  settings: COMMAND_SETTINGS.sparql,
  options: {
    file: { type: "string", help: "read the query from a file instead of the argument", short: "f" },
    typed: { type: "boolean", help: "print SPARQL JSON terms instead of plain values" },
  },
  async run({ config, positionals, options }) {
    const query = typeof options.file === "string" ? readFileSync(options.file, "utf8") : positionals.join(" ");
    if (query.trim() === "") throw new UsageError("give a query, or --file <path>. Run 'ckg sparql --help'.");
    const [{ liveSnapshotId, dataDir, snapshotPath }, { readManifest }, { OxigraphStore }, { prepareQuery, shapeAnswer, graphAnswer, explainEngineError }] =
      await Promise.all([import("../store/data-dir.ts"), import("../store/manifest.ts"), import("../graph/graph-process.ts"), import("../graph/sparql.ts")]);
    const log = createLogger(config.log_level, 2);
    const dir = dataDir(config.data_dir);
    const id = liveSnapshotId(dir);
    const manifest = readManifest(snapshotPath(dir, id));
    const prepared = prepareQuery(query, manifest.namespaces);
    const store = new OxigraphStore();
    const loaded = store.load(join(snapshotPath(dir, id), manifest.files.graph));
    log.info({ snapshot: id, quads: loaded.quads, ms: loaded.ms }, "graph loaded");
    const scope = { fromQuery: prepared.fromQuery };
    let answer: unknown;
    try {
      // CONSTRUCT and DESCRIBE as on /api/sparql: JSON-LD, capped at as many triples as SELECT's rows.
      answer =
        prepared.form === "CONSTRUCT" || prepared.form === "DESCRIBE"
          ? graphAnswer(store.construct(prepared.query, { ...scope, format: "json-ld", maxTriples: prepared.maxRows }), prepared.form, "json-ld")
          : shapeAnswer(store.select(prepared.query, scope), { typed: options.typed === true, maxRows: prepared.maxRows });
    } catch (error) {
      throw explainEngineError(query, manifest.namespaces, (error as Error).message);
    }
    console.log(JSON.stringify(answer, null, 2));
  },
};

/**
 * @module store/open-state
 * The state store a configuration names (store/state.ts): PostgreSQL at `state_url`, shared by
 * replicas, else SQLite in the data directory. Each engine is loaded only when used.
 */
import type { Config } from "../config/config.ts";
import type { StateStore } from "./state.ts";

export async function openState(config: Pick<Config, "state_url">, path: string): Promise<StateStore> {
  if (config.state_url) {
    const { openPostgresState } = await import("./state-postgres.ts");
    return openPostgresState(config.state_url);
  }
  const { openSqliteState } = await import("./state-sqlite.ts");
  return openSqliteState(path);
}

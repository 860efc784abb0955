/**
 * @module config/provider
 * What the configuration knows of a data provider `ckg ingest` reads: its id and its own settings
 * (names, defaults, help, secrets, former names). Light on purpose: the settings table, --help and
 * the docs read it without loading any connector. The connector (ingest/providers/) takes the
 * definition and adds what the provider does: how its settings become requests, fetch and parse.
 */
import type { Setting } from "./setting.ts";

export interface ProviderDefinition<Id extends string = string, S extends Record<string, Setting> = Record<string, Setting>> {
  /** How ckg names it: in --providers and ingest_providers, the raw store's folder, the ingest report, the source of its facts. */
  id: Id;
  /** How people name it (in `ckg ingest --help`). */
  title: string;
  /** Its own settings: hosts, keys, pace and limits. */
  settings: S;
}

export function defineProvider<const Id extends string, const S extends Record<string, Setting>>(definition: ProviderDefinition<Id, S>): ProviderDefinition<Id, S> {
  return definition;
}

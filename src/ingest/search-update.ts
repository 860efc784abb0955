/**
 * @module ingest/search-update
 * The new snapshot's search index: the base's, updated for the entities this run changed and those
 * whose documents name them; built afresh when the embedder differs or the corpus changed whole.
 */
import { join } from "node:path";
import { Rng } from "../rng.ts";
import type { World } from "../model/world.ts";
import type { Logger } from "../log.ts";
import { type SearchIndexInfo, buildSearchIndex, updateSearchIndex } from "../search/build-index.ts";
import { Corpus } from "../search/corpus.ts";
import { LsaEmbedder } from "../search/embedder.ts";
import { loadLsa } from "../search/lsa.ts";
import { foldInWords } from "../search/lsa-fold.ts";
import type { SnapshotManifest } from "../store/manifest.ts";
import type { IngestOptions } from "./options.ts";

/**
 * The new snapshot's search index: the base's updated where the entities changed, when it was
 * made with the embedder this run would use (the usual case, minutes less at full scale); else
 * built afresh. A learned model (LSA) knows the words of the corpus it was learned from: words the
 * changed documents bring that it does not know (provider descriptions: "paypal", "paxos") are
 * folded into it (search/lsa-fold), so a new word is searchable by meaning, not only by its letters.
 */
export async function searchIndex(
  world: World,
  staging: string,
  base: { dir: string; manifest: SnapshotManifest },
  touched: Set<string>,
  before: Map<string, string>,
  options: Pick<IngestOptions, "embedder" | "embedderModel"> & { rebuild: boolean },
  log: Logger,
): Promise<SearchIndexInfo> {
  const info = base.manifest.search;
  const sameEmbedder = options.embedder ? options.embedder.spec === info.embedder && (options.embedderModel ?? null) === info.model : info.embedder === "lsa";
  // Entities left out (the demo) change the whole corpus: the index is built afresh.
  if (!sameEmbedder || options.rebuild) {
    return buildSearchIndex(world, staging, { rng: new Rng(base.manifest.build.seed).fork("search"), embedder: options.embedder, model: options.embedderModel }, log);
  }
  // A document names its neighbours (their name and sector): what links to an entity whose name or
  // sector changed is embedded again too.
  const after = neighbourSignatures(world, touched);
  const renamed = new Set([...touched].filter((id) => after.get(id) !== before.get(id)));
  const dirty = new Set(touched);
  const { subject, object, isRelation } = world.facts;
  for (let i = 0; i < subject.length; i++) if (isRelation[i] && renamed.has(object[i]!)) dirty.add(subject[i]!);
  if (options.embedder) return updateSearchIndex(world, staging, { dir: base.dir, info }, dirty, options.embedder, log);
  const corpus = new Corpus(world);
  const searchable = new Set(corpus.ids);
  const { model, added } = foldInWords(loadLsa(join(base.dir, info.dir)), corpus, [...dirty].filter((id) => searchable.has(id)));
  if (added.length > 0) log.info({ words: added.length, examples: added.slice(0, 8) }, "words new to the search model folded into it");
  return updateSearchIndex(world, staging, { dir: base.dir, info }, dirty, new LsaEmbedder(model), log, added.length > 0 ? model : undefined);
}

/** What a neighbour's search document says of each entity: its name and sector (category). */
export function neighbourSignatures(world: World, only?: Set<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of world.entities.values()) if (!only || only.has(e.id)) out.set(e.id, e.name);
  const { subject, predicate, object } = world.facts;
  for (let i = 0; i < subject.length; i++) {
    if (predicate[i] !== "category") continue;
    const id = subject[i]!;
    const name = out.get(id);
    if (name !== undefined) out.set(id, `${name}\u0000${object[i]}`);
  }
  return out;
}

/**
 * @module graph/meta-graph
 * ckg's own named graph in the RDF dump (graph.nq): the ontology and each source's description.
 * One place, because two readers must agree on it to the quad: the snapshot writer, which dumps it
 * beside the facts, and analytic SPARQL on DuckDB (graph/analytic), which adds it to the facts of
 * the graph tables so an answer counts what the graph store holds.
 */
import type { Namespaces } from "../entities/vocabulary.ts";
import { RDF_TYPE, XSD } from "../entities/vocabulary.ts";
import { META_SOURCE } from "../store/manifest.ts";
import { loadOntology } from "./ontology.ts";
import { oxigraph } from "./oxigraph.ts";

/** What the dump says of a source (the manifest's sources carry the same fields). */
export interface SourceDescription {
  id: string;
  name: string;
  license: string;
  synthetic: boolean;
}

/** An N-Quads literal (RDF 1.1 N-Quads, ECHAR escapes); xsd:string is written plain. */
export function nquadsLiteral(value: string, datatype: string | undefined): string {
  const escaped = value.replace(/[\\"\n\r\t]/g, (ch) => ({ "\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t" })[ch]!);
  return datatype && datatype !== `${XSD}string` ? `"${escaped}"^^<${datatype}>` : `"${escaped}"`;
}

/** The meta graph as N-Quads lines (each ends with " ."). */
export function metaQuadLines(ns: Namespaces, sources: Iterable<SourceDescription>): string[] {
  const meta = `<${ns.source}${META_SOURCE}>`;
  const lines: string[] = [];
  for (const quad of oxigraph.parse(loadOntology(ns.ontology).turtle, { format: "text/turtle" })) {
    lines.push(`${quad.subject.toString()} ${quad.predicate.toString()} ${quad.object.toString()} ${meta} .`);
  }
  for (const source of sources) {
    const s = `<${ns.source}${source.id}>`;
    lines.push(`${s} <${RDF_TYPE}> <${ns.ontology}Source> ${meta} .`);
    lines.push(`${s} <http://schema.org/name> ${nquadsLiteral(source.name, undefined)} ${meta} .`);
    lines.push(`${s} <${ns.ontology}license> ${nquadsLiteral(source.license, undefined)} ${meta} .`);
    lines.push(`${s} <${ns.ontology}synthetic> ${nquadsLiteral(String(source.synthetic), `${XSD}boolean`)} ${meta} .`);
  }
  return lines;
}

/**
 * @module api/sparql-results-xml
 * SPARQL Query Results XML Format (W3C, 2013): the default of many clients (SPARQLWrapper, rdflib,
 * Jena's older tools). A small encoder of our own: the format is four elements deep, and no XML
 * writer among our dependencies is worth a library for it; what matters is the escaping (XML 1.0):
 *   - `&`, `<`, `>` in text; `&`, `<`, `"` and tab, line feed, carriage return in attributes (a
 *     parser normalizes those to spaces in an attribute value);
 *   - carriage return in text as `&#xD;` (a parser turns a raw CR into a line feed);
 *   - characters XML 1.0 cannot carry at all, escaped or not (C0 controls but tab, line feed, CR;
 *     U+FFFE, U+FFFF; unpaired surrogates), as U+FFFD: no form of them is well-formed XML.
 */
import type { Term } from "../operations/sparql-answers.ts";

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">';
const XSD_STRING = "http://www.w3.org/2001/XMLSchema#string";

/** Anything in text that needs care; tested first so that most values are written as they are. */
const TEXT_SPECIAL = /[&<>\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;
const ATTRIBUTE_SPECIAL = /[&<>"\t\n\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;
/** Characters XML 1.0 excludes, with the surrogates that do not form a pair. */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const TEXT_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#xD;" };
const ATTRIBUTE_ESCAPES: Record<string, string> = { ...TEXT_ESCAPES, '"': "&quot;", "\t": "&#x9;", "\n": "&#xA;" };

/** Character data of an element. */
export function xmlText(value: string): string {
  if (!TEXT_SPECIAL.test(value)) return value;
  return value.replace(NOT_XML, "\uFFFD").replace(/[&<>\r]/g, (c) => TEXT_ESCAPES[c]!);
}

/** The value of an attribute written in double quotes. */
function xmlAttribute(value: string): string {
  if (!ATTRIBUTE_SPECIAL.test(value)) return value;
  return value.replace(NOT_XML, "\uFFFD").replace(/[&<>"\t\n\r]/g, (c) => ATTRIBUTE_ESCAPES[c]!);
}

function term(value: Term): string {
  if (value.type === "uri") return `<uri>${xmlText(value.value)}</uri>`;
  if (value.type === "bnode") return `<bnode>${xmlText(value.value)}</bnode>`;
  const lang = value["xml:lang"];
  if (lang) return `<literal xml:lang="${xmlAttribute(lang)}">${xmlText(value.value)}</literal>`;
  if (value.datatype && value.datatype !== XSD_STRING) return `<literal datatype="${xmlAttribute(value.datatype)}">${xmlText(value.value)}</literal>`;
  return `<literal>${xmlText(value.value)}</literal>`;
}

/** A SELECT answer; an unbound variable has no binding element in its result. */
export function selectXml(variables: readonly string[], rows: readonly Record<string, Term>[]): string {
  const parts: string[] = [HEAD, "<head>"];
  for (const name of variables) parts.push(`<variable name="${xmlAttribute(name)}"/>`);
  parts.push("</head><results>");
  for (const row of rows) {
    parts.push("<result>");
    for (const name of variables) {
      const value = row[name];
      if (value !== undefined) parts.push(`<binding name="${xmlAttribute(name)}">${term(value)}</binding>`);
    }
    parts.push("</result>");
  }
  parts.push("</results></sparql>\n");
  return parts.join("");
}

/** An ASK answer. */
export function askXml(value: boolean): string {
  return `${HEAD}<head/><boolean>${value}</boolean></sparql>\n`;
}

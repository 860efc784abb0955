/**
 * @module graph/sparql-guard
 * The fast read-only guard of the SPARQL endpoint: a lexer (not a parser) that finds what the
 * service needs in microseconds, where a full JavaScript SPARQL parser takes a quarter of a
 * millisecond, more than a point query itself:
 *   - the query form (SELECT, ASK, CONSTRUCT, DESCRIBE, or an update keyword),
 *   - SERVICE anywhere outside strings and IRIs,
 *   - FROM (the query names its own dataset),
 *   - the outermost LIMIT, to cap the rows (LIMIT max+1 tells truncation apart).
 * Syntax is checked by Oxigraph's own parser when the query runs. Oxigraph's query() also refuses
 * updates and its WebAssembly build refuses SERVICE, so this guard is one of two walls, not the only one.
 * When the lexer meets something it does not follow, it says so and the caller uses the full parser.
 */

export type QueryForm = "SELECT" | "ASK" | "CONSTRUCT" | "DESCRIBE" | "UPDATE";

export interface Scan {
  form: QueryForm;
  usesService: boolean;
  /** The query names its dataset (FROM, FROM NAMED). */
  fromQuery: boolean;
  /** CONSTRUCT: its solutions capped at this many (set by the full parse: construct-cap.ts). */
  solutionCap?: number;
  /** The query with its outermost LIMIT set to at most `maxRows + 1` (SELECT only). */
  capped: string;
}

interface Token {
  kind: "word" | "var" | "iri" | "string" | "number" | "punct";
  text: string;
  start: number;
  end: number;
}

const UPDATE_WORDS = new Set(["INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD", "WITH"]);
const FORMS = new Set(["SELECT", "ASK", "CONSTRUCT", "DESCRIBE"]);

/** Splits a query into tokens, skipping white space and comments. Returns undefined on text it cannot follow. */
function tokenize(text: string): Token[] | undefined {
  const tokens: Token[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      i++;
    } else if (c === "#") {
      while (i < n && text[i] !== "\n") i++;
    } else if (c === "<") {
      // An IRI has no spaces or angle brackets inside; otherwise `<` is the less-than operator.
      let j = i + 1;
      while (j < n && !/[\s<>"{}|^`\\]/.test(text[j]!)) j++;
      if (text[j] === ">") {
        tokens.push({ kind: "iri", text: text.slice(i, j + 1), start: i, end: j + 1 });
        i = j + 1;
      } else {
        tokens.push({ kind: "punct", text: "<", start: i, end: i + 1 });
        i++;
      }
    } else if (c === '"' || c === "'") {
      const long = text.startsWith(c.repeat(3), i);
      const quote = long ? c.repeat(3) : c;
      let j = i + quote.length;
      for (;;) {
        if (j >= n) return undefined;
        if (text[j] === "\\") j += 2;
        else if (text.startsWith(quote, j)) break;
        else if (!long && (text[j] === "\n" || text[j] === "\r")) return undefined;
        else j++;
      }
      tokens.push({ kind: "string", text: text.slice(i, j + quote.length), start: i, end: j + quote.length });
      i = j + quote.length;
    } else if (c === "?" || c === "$") {
      let j = i + 1;
      while (j < n && /[\p{L}\p{N}_\u00B7\u0300-\u036F\u203F-\u2040]/u.test(text[j]!)) j++;
      tokens.push({ kind: "var", text: text.slice(i, j), start: i, end: j });
      i = j;
    } else if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < n && /[0-9.eE+-]/.test(text[j]!) && !(text[j] === "." && !/[0-9]/.test(text[j + 1] ?? ""))) j++;
      tokens.push({ kind: "number", text: text.slice(i, j), start: i, end: j });
      i = j;
    } else if (/[\p{L}_:]/u.test(c)) {
      // Keywords, prefixed names (ckg:Token, schema:name), `a`, booleans.
      let j = i + 1;
      while (j < n && /[\p{L}\p{N}_:\-.%\\]/u.test(text[j]!)) j++;
      while (text[j - 1] === ".") j--; // a trailing dot ends the triple, it is not part of the name
      tokens.push({ kind: "word", text: text.slice(i, j), start: i, end: j });
      i = j;
    } else {
      tokens.push({ kind: "punct", text: c, start: i, end: i + 1 });
      i++;
    }
  }
  return tokens;
}

/**
 * Reads the form, SERVICE use and outermost LIMIT of a query, and caps its rows.
 * Returns undefined when the text is not something this lexer follows (use the full parser).
 */
export function scanQuery(text: string, maxRows: number): Scan | undefined {
  const tokens = tokenize(text);
  if (!tokens) return undefined;
  let k = 0;
  // Prologue: BASE <iri> and PREFIX name: <iri>.
  for (;;) {
    const word = tokens[k]?.kind === "word" ? tokens[k]!.text.toUpperCase() : "";
    if (word === "BASE" && tokens[k + 1]?.kind === "iri") k += 2;
    else if (word === "PREFIX" && tokens[k + 1]?.kind === "word" && tokens[k + 2]?.kind === "iri") k += 3;
    else break;
  }
  const first = tokens[k];
  if (!first || first.kind !== "word") return undefined;
  const keyword = first.text.toUpperCase();
  const usesService = tokens.some((t) => t.kind === "word" && t.text.toUpperCase() === "SERVICE");
  const fromQuery = tokens.some((t) => t.kind === "word" && t.text.toUpperCase() === "FROM");
  if (UPDATE_WORDS.has(keyword)) return { form: "UPDATE", usesService, fromQuery, capped: text };
  if (!FORMS.has(keyword)) return undefined;
  const form = keyword as QueryForm;
  // CONSTRUCT and DESCRIBE are capped and rewritten from a full parse (sparql.ts).
  if (form !== "SELECT") return { form, usesService, fromQuery, capped: text };

  // The WHERE group is the first `{` outside any parentheses (SELECT expressions may hold EXISTS { }).
  let braces = 0;
  let parens = 0;
  let whereEnd = -1;
  let i = k + 1;
  for (; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind !== "punct") continue;
    if (t.text === "(") parens++;
    else if (t.text === ")") parens--;
    else if (t.text === "{") braces++;
    else if (t.text === "}") {
      braces--;
      if (braces === 0 && parens === 0) {
        whereEnd = i;
        break;
      }
    }
    if (braces < 0 || parens < 0) return undefined;
  }
  if (whereEnd < 0) return undefined;

  // Solution modifiers after the WHERE group, at depth 0: find LIMIT n and a trailing VALUES block.
  let limit: Token | undefined;
  let values: Token | undefined;
  braces = 0;
  parens = 0;
  for (i = whereEnd + 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === "punct") {
      if (t.text === "(") parens++;
      else if (t.text === ")") parens--;
      else if (t.text === "{") braces++;
      else if (t.text === "}") braces--;
      continue;
    }
    if (braces !== 0 || parens !== 0 || t.kind !== "word") continue;
    const word = t.text.toUpperCase();
    if (word === "LIMIT") {
      const value = tokens[i + 1];
      if (value?.kind !== "number" || !/^\d+$/.test(value.text)) return undefined;
      limit = value;
    } else if (word === "VALUES") {
      values = t;
      break;
    }
  }
  const cap = maxRows + 1;
  let capped: string;
  if (limit) {
    capped = Number(limit.text) > maxRows ? `${text.slice(0, limit.start)}${cap}${text.slice(limit.end)}` : text;
  } else if (values) {
    capped = `${text.slice(0, values.start)}LIMIT ${cap}\n${text.slice(values.start)}`;
  } else {
    capped = `${text}\nLIMIT ${cap}`;
  }
  return { form, usesService, fromQuery, capped };
}

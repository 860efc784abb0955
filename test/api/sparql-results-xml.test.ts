/**
 * The SPARQL XML results encoder (api/sparql-results-xml.ts) read back by a strict XML parser that
 * ckg did not write (sparqlxml-parse, Comunica's, on saxes): every value that XML 1.0 can carry comes
 * back as it went in, whatever it holds (markup, quotes, line ends, tabs in attributes, characters
 * outside the BMP), and what XML 1.0 cannot carry at all comes back as U+FFFD instead of breaking
 * the document. Random strings (fast-check) besides the chosen ones.
 */
import { describe, expect, test } from "bun:test";
import { Readable } from "node:stream";
import fc from "fast-check";
import { SparqlXmlParser } from "sparqlxml-parse";
import { askXml, selectXml, xmlText } from "../../src/api/sparql-results-xml.ts";
import type { Term } from "../../src/graph/protocol.ts";

type Read = Record<string, { termType: string; value: string; language?: string; datatype?: { value: string } }>;

async function readBack(xml: string): Promise<Read[]> {
  const rows: Read[] = [];
  const stream = new SparqlXmlParser({ prefixVariableQuestionMark: false }).parseXmlResultsStream(Readable.from([xml]));
  for await (const row of stream as AsyncIterable<Read>) rows.push(row);
  return rows;
}

/** What XML 1.0 keeps of a string: each character it cannot carry becomes U+FFFD. */
const kept = (value: string) => value.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");

describe("SPARQL XML results", () => {
  test("terms of every kind, unbound left out, read back by a strict parser", async () => {
    const rows: Record<string, Term>[] = [
      {
        iri: { type: "uri", value: "https://ckg.example/id/a?b=1&c=<2>" },
        text: { type: "literal", value: 'a <b> & "c" \'d\' ]]> \r\n\t end 😀', "xml:lang": "en-GB" },
        n: { type: "literal", value: "42", datatype: "http://www.w3.org/2001/XMLSchema#integer" },
        b: { type: "bnode", value: "b0" },
      },
      { text: { type: "literal", value: "" } },
    ];
    const back = await readBack(selectXml(["iri", "text", "n", "b"], rows));
    expect(back).toHaveLength(2);
    expect(back[0]!.iri).toMatchObject({ termType: "NamedNode", value: "https://ckg.example/id/a?b=1&c=<2>" });
    expect(back[0]!.text).toMatchObject({ termType: "Literal", value: 'a <b> & "c" \'d\' ]]> \r\n\t end 😀', language: "en-gb" });
    expect(back[0]!.n!.datatype!.value).toBe("http://www.w3.org/2001/XMLSchema#integer");
    expect(back[0]!.b!.termType).toBe("BlankNode");
    expect(Object.keys(back[1]!)).toEqual(["text"]);
    expect(back[1]!.text!.value).toBe("");
  });

  test("characters XML 1.0 cannot carry become U+FFFD; the document stays well-formed", async () => {
    const value = "bell\u0007 nul\u0000 lone\uD800 other\uDC00 fffe\uFFFE ok😀";
    expect(kept(value)).toBe("bell\uFFFD nul\uFFFD lone\uFFFD other\uFFFD fffe\uFFFD ok😀");
    const back = await readBack(selectXml(["x"], [{ x: { type: "literal", value } }]));
    expect(back[0]!.x!.value).toBe(kept(value));
    expect(xmlText("plain")).toBe("plain");
  });

  test("any string comes back as XML 1.0 keeps it", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 40 }), fc.string({ maxLength: 12 }), async (value, lang) => {
        const language = lang.replace(/[^a-zA-Z0-9-]/g, "").replace(/^-+|-+$/g, "") || undefined;
        const term: Term = language ? { type: "literal", value, "xml:lang": language } : { type: "literal", value };
        const back = await readBack(selectXml(["v"], [{ v: term }]));
        expect(back[0]!.v!.value).toBe(kept(value));
      }),
      { numRuns: 300 },
    );
  });

  test("ASK", async () => {
    const parsed = await new SparqlXmlParser().parseXmlBooleanStream(Readable.from([askXml(false)]));
    expect(parsed).toBe(false);
  });
});

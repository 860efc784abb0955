"""Queries a ckg /sparql endpoint with two SPARQL client libraries that ckg did not write, each with
its own defaults, and prints what each understood as one JSON object (test/api/sparql-clients.test.ts
checks it). SPARQLWrapper asks for SPARQL XML results by default (RDF/XML for CONSTRUCT and
DESCRIBE); rdflib's SPARQLStore asks for XML results and RDF/XML graphs.

Usage: python3 sparql_clients.py <endpoint> <entity IRI> <source graph IRI>
"""
import json
import sys

from rdflib import Graph, URIRef
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from SPARQLWrapper import JSON, POST, TURTLE, SPARQLWrapper

endpoint, entity, source = sys.argv[1:4]
NAME = "http://schema.org/name"
out = {}


def xml_rows(document):
    """Rows of a SPARQL XML results document, as SPARQLWrapper hands it over (xml.dom.minidom)."""
    rows = []
    for result in document.getElementsByTagName("result"):
        row = {}
        for binding in result.getElementsByTagName("binding"):
            node = [n for n in binding.childNodes if n.nodeType == n.ELEMENT_NODE][0]
            row[binding.getAttribute("name")] = {"type": node.tagName, "value": node.firstChild.data if node.firstChild else "", "lang": node.getAttribute("xml:lang"), "datatype": node.getAttribute("datatype")}
        rows.append(row)
    return rows


# SPARQLWrapper with its defaults: GET, XML results.
wrapper = SPARQLWrapper(endpoint)
wrapper.setQuery(f'SELECT ?name ?n ?text WHERE {{ <{entity}> <{NAME}> ?name BIND(42 AS ?n) BIND("x & <y>"@en AS ?text) }}')
out["wrapper_select_xml"] = xml_rows(wrapper.query().convert())

wrapper.setQuery(f"ASK {{ <{entity}> <{NAME}> ?name }}")
document = wrapper.query().convert()
out["wrapper_ask_xml"] = document.getElementsByTagName("boolean")[0].firstChild.data

# JSON by POST.
wrapper = SPARQLWrapper(endpoint)
wrapper.setMethod(POST)
wrapper.setReturnFormat(JSON)
wrapper.setQuery(f"SELECT ?name WHERE {{ <{entity}> <{NAME}> ?name }}")
out["wrapper_select_json_post"] = wrapper.query().convert()["results"]["bindings"]

# CONSTRUCT with its default (RDF/XML, parsed into an rdflib Graph), DESCRIBE as Turtle.
wrapper = SPARQLWrapper(endpoint)
wrapper.setQuery(f"CONSTRUCT {{ <{entity}> <{NAME}> ?name }} WHERE {{ <{entity}> <{NAME}> ?name }}")
graph = wrapper.query().convert()
out["wrapper_construct_rdfxml"] = sorted(str(o) for o in graph.objects(URIRef(entity), URIRef(NAME)))

wrapper.setQuery(f"DESCRIBE <{entity}>")
wrapper.setReturnFormat(TURTLE)
described = Graph().parse(data=wrapper.query().convert(), format="turtle")
out["wrapper_describe_turtle"] = {"triples": len(described), "names": sorted(str(o) for o in described.objects(URIRef(entity), URIRef(NAME)))}

# A dataset: the named source graph alone as the default graph.
wrapper = SPARQLWrapper(endpoint)
wrapper.setReturnFormat(JSON)
wrapper.addDefaultGraph(source)
wrapper.setQuery("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
out["wrapper_dataset_count"] = int(wrapper.query().convert()["results"]["bindings"][0]["n"]["value"])

# rdflib's SPARQLStore: a read-only Graph over the endpoint.
store = SPARQLStore(endpoint)
remote = Graph(store)
out["rdflib_select"] = sorted(str(row[0]) for row in remote.query(f"SELECT ?name WHERE {{ <{entity}> <{NAME}> ?name }}"))
out["rdflib_ask"] = bool(remote.query(f"ASK {{ <{entity}> <{NAME}> ?name }}").askAnswer)
constructed = remote.query(f"CONSTRUCT {{ <{entity}> ?p ?o }} WHERE {{ <{entity}> ?p ?o }}").graph
out["rdflib_construct"] = {"triples": len(constructed), "names": sorted(str(o) for o in constructed.objects(URIRef(entity), URIRef(NAME)))}
out["rdflib_triples"] = sorted(str(o) for _, _, o in remote.triples((URIRef(entity), URIRef(NAME), None)))

print(json.dumps(out))

/**
 * @module entities/vocabulary
 * Names of the graph: namespaces, entity types, focus categories, the predicates code writes, and
 * how an entity id maps to its URI. data/ontology.ttl describes the same terms for people and the
 * schema endpoint; test/entities/vocabulary.test.ts checks that the two agree.
 */

export const RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
export const RDFS = "http://www.w3.org/2000/01/rdf-schema#";
export const OWL = "http://www.w3.org/2002/07/owl#";
export const SCHEMA = "http://schema.org/";
export const XSD = "http://www.w3.org/2001/XMLSchema#";
export const SCHEMA_NAME = `${SCHEMA}name`;
/** owl:sameAs as a fact's predicate: the same thing's page at a provider (an IRI that is not one of our entities). */
export const SAME_AS = "owl:sameAs";

/** The namespace written in data/ontology.ttl; a configured `ontology_ns` replaces it at build time. */
export const DEFAULT_ONTOLOGY_NS = "https://ckg.example/ontology#";

/** The seven searchable entity types of docs/spec.md §2.3. */
export const ENTITY_TYPES = ["Token", "Protocol", "Chain", "Organization", "Person", "Exchange", "Pool"] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

/** Graph nodes that support the entities but are not searchable entity types. */
export const SUPPORT_TYPES = [
  "FundingRound",
  "GovernanceProposal",
  "VestingSchedule",
  "Repository",
  "LendingMarket",
  "SecurityIncident",
] as const;
export type SupportType = (typeof SUPPORT_TYPES)[number];
export type NodeType = EntityType | SupportType;

/** Subclasses that add a second label to an entity (search `labels`, explore `labels`). */
export const SUBCLASSES = {
  Stablecoin: "Token",
  VentureFund: "Organization",
  Company: "Organization",
  DAO: "Organization",
  Foundation: "Organization",
  MarketMaker: "Organization",
  CentralizedExchange: "Exchange",
  DecentralizedExchange: "Exchange",
} as const satisfies Record<string, EntityType>;
export type Subclass = keyof typeof SUBCLASSES;
export type ClassName = NodeType | Subclass;

export const FOCUS_CATEGORIES = [
  "investment",
  "team",
  "lineage",
  "ecosystem",
  "market",
  "defi",
  "financial_metrics",
  "insider_activity",
  "vesting",
  "github",
] as const;
export type FocusCategory = (typeof FOCUS_CATEGORIES)[number];

/** Relationships (object properties) in the ontology namespace. */
export const RELATIONS = [
  "raisedBy",
  "investor",
  "leadInvestor",
  "investedIn",
  "founderOf",
  "worksAt",
  "advisorOf",
  "forkOf",
  "parentProtocol",
  "successorOf",
  "parentChain",
  "sameNetworkAs",
  "bridgedFrom",
  "deployedOn",
  "nativeToken",
  "governanceToken",
  "issuedBy",
  "governedBy",
  "proposalOf",
  "integratesWith",
  "operatedBy",
  "listedOn",
  "marketMakerFor",
  "poolOf",
  "poolToken",
  "marketOf",
  "marketAsset",
  "collateralToken",
  "treasuryHolds",
  "feeToken",
  "insiderOf",
  "topHolderOf",
  "vestingOf",
  "beneficiary",
  "hasRepository",
  "contributesTo",
  "incidentOf",
  "incidentChain",
] as const;
export type Relation = (typeof RELATIONS)[number];

/** Attributes (datatype properties): ontology-namespace local names, or schema.org ones. */
export const ATTRIBUTES = [
  "schema:name",
  "schema:description",
  "schema:url",
  "alias",
  "symbol",
  "decimals",
  "contractAddress",
  "chainKey",
  "chainId",
  "layer",
  "chainFamily",
  "category",
  "pegCurrency",
  "pegMechanism",
  "country",
  "foundedYear",
  "jobTitle",
  "walletAddress",
  "feeTier",
  "poolKind",
  "roundStage",
  "amountUsd",
  "announcedOn",
  "proposalStatus",
  "allocationShare",
  "allocationGroup",
  "vestingStart",
  "cliffDate",
  "vestingEnd",
  "unlockFrequency",
  "programmingLanguage",
  "license",
  "synthetic",
  "occurredOn",
  "technique",
  "classification",
  "targetType",
  "bridgeHack",
  "returnedFundsUsd",
] as const;
export type Attribute = (typeof ATTRIBUTES)[number];

/** The XSD datatype written for an attribute's literal (plain string when absent). */
export const ATTRIBUTE_DATATYPES: Partial<Record<Attribute, string>> = {
  "schema:url": `${XSD}anyURI`,
  decimals: `${XSD}integer`,
  foundedYear: `${XSD}gYear`,
  feeTier: `${XSD}decimal`,
  amountUsd: `${XSD}decimal`,
  announcedOn: `${XSD}date`,
  allocationShare: `${XSD}decimal`,
  vestingStart: `${XSD}date`,
  cliffDate: `${XSD}date`,
  vestingEnd: `${XSD}date`,
  synthetic: `${XSD}boolean`,
  occurredOn: `${XSD}date`,
  bridgeHack: `${XSD}boolean`,
  returnedFundsUsd: `${XSD}decimal`,
};

export interface Namespaces {
  /** {schema_ns}: classes and predicates. */
  ontology: string;
  /** Entity URIs: `${entity}${id}` with id `<type>/<slug>`. */
  entity: string;
  /** Named graphs of sources: `${source}${sourceId}`. */
  source: string;
}

/** Entity and source bases sit beside the ontology: https://x/ontology# gives https://x/id/ and https://x/source/. */
export function namespaces(ontologyNs: string = DEFAULT_ONTOLOGY_NS): Namespaces {
  const base = new URL(".", ontologyNs.replace(/[#/]$/, "")).href;
  return { ontology: ontologyNs, entity: `${base}id/`, source: `${base}source/` };
}

/** The field name a predicate shows as in explore and the changes feed: schema:name -> name, owl:sameAs -> sameAs, rdf:type -> type. */
export function fieldName(predicate: string): string {
  if (predicate === "rdf:type") return "type";
  return predicate.replace(/^(?:schema|owl):/, "");
}

export function predicateIri(ns: Namespaces, name: Relation | Attribute): string {
  return name.startsWith("schema:") ? `${SCHEMA}${name.slice(7)}` : `${ns.ontology}${name}`;
}

/**
 * The IRI of a fact's predicate as the facts table writes it (graph_facts.predicate): `rdf:type`,
 * `owl:sameAs`, `schema:name`, or a ckg predicate's own name.
 */
export function factPredicateIri(ns: Namespaces, predicate: string): string {
  if (predicate === "rdf:type") return RDF_TYPE;
  if (predicate === SAME_AS) return `${OWL}sameAs`;
  return predicateIri(ns, predicate as Relation | Attribute);
}

export function classIri(ns: Namespaces, name: ClassName): string {
  return `${ns.ontology}${name}`;
}

/** The first segment of an entity id: Token -> token, FundingRound -> funding-round. */
export function idPrefix(type: NodeType): string {
  return type.replace(/([a-z])([A-Z])/g, "$1-$2").toLowerCase();
}

const PREFIX_TO_TYPE = new Map<string, NodeType>(
  [...ENTITY_TYPES, ...SUPPORT_TYPES].map((type) => [idPrefix(type), type]),
);

/** The node type an id or URI names, from its first segment. */
export function typeOfId(id: string): NodeType | undefined {
  return PREFIX_TO_TYPE.get(id.slice(0, id.indexOf("/")));
}

export function entityUri(ns: Namespaces, id: string): string {
  return `${ns.entity}${id}`;
}

/** The id of an entity URI, or undefined when the URI is not one of ours. */
export function entityIdOf(ns: Namespaces, uri: string): string | undefined {
  return uri.startsWith(ns.entity) ? uri.slice(ns.entity.length) : undefined;
}

export function isEntityType(value: string): value is EntityType {
  return (ENTITY_TYPES as readonly string[]).includes(value);
}

/** Lower-case ASCII slug; the stable part of an entity id. */
export function slugify(text: string): string {
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug.slice(0, 80) || "x";
}

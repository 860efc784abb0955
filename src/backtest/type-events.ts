/**
 * @module backtest/type-events
 * Which labelled events each signal type names, and which types are risk types (graded also on
 * how early they warned of any incident on the entity). A type that names no kind of event, and
 * is no risk type, has nothing in the labels to be right or wrong about: it is reported unmeasured.
 */
import type { EventKind } from "./labels.ts";

export interface TypeEvents {
  /** Kinds of event whose onset the type detects. */
  detects: EventKind[];
  /** Graded on warnings: incidents of any kind it fired on the entity before. */
  risk: boolean;
  /** Why no real label can grade it (when it detects nothing and is no risk type). */
  unlabelled?: string;
}

const opportunityOrStructure = (what: string): TypeEvents => ({ detects: [], risk: false, unlabelled: what });

export const TYPE_EVENTS: Record<string, TypeEvents> = {
  "insider-accumulation": opportunityOrStructure("insider flows are an opportunity as much as a risk; no public label dates insider buying"),
  "whale-cross-protocol": opportunityOrStructure("wallet activity across protocols is a structure, not an event with a day"),
  "sector-rotation": opportunityOrStructure("sector flows have no public dated labels"),
  "flow-anomaly": { detects: [], risk: true },
  "smart-money-divergence": { detects: [], risk: true },
  "co-investment-network": opportunityOrStructure("shared investors are a structure of the graph, not an event with a day"),
  "cross-sector-cluster": opportunityOrStructure("communities of the investment graph have no dated labels"),
  "bridge-fund": opportunityOrStructure("a fund's centrality is a structure of the graph, not an event with a day"),
  "developer-network": { detects: [], risk: true },
  "yield-anomaly": { detects: [], risk: true },
  "yield-sustainability": { detects: [], risk: true },
  "utilization-stress": { detects: [], risk: true },
  "debt-ceiling-proximity": { detects: [], risk: true },
  "stablecoin-depeg": { detects: ["depeg"], risk: true },
  "stablecoin-supply-shift": { detects: ["supply-run"], risk: true },
  "revenue-momentum": opportunityOrStructure("revenue acceleration is an opportunity signal; no public label dates it"),
  "earnings-health": { detects: [], risk: true },
  "usage-price-mismatch": opportunityOrStructure("a divergence of users and price has no dated public label"),
  "capital-efficiency": opportunityOrStructure("fees outpacing TVL is an opportunity signal; no public label dates it"),
  "treasury-health": { detects: [], risk: true },
  "governance-apathy": opportunityOrStructure("low turnout is a property of a proposal; no incident list dates governance failures"),
  "controversial-proposal": opportunityOrStructure("a narrow vote is a property of a proposal; no incident list dates governance failures"),
  "power-concentration": { detects: [], risk: true },
  "unlock-pressure": { detects: ["unlock-cliff"], risk: true },
  "cluster-unlock-risk": { detects: ["unlock-cliff"], risk: true },
  "exchange-liquidity-risk": { detects: ["exchange-collapse"], risk: true },
  "convergence-alert": { detects: [], risk: true },
  "narrative-synthesis": opportunityOrStructure("a briefing links other signals; its quality is theirs"),
};

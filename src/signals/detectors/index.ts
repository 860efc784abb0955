/**
 * @module signals/detectors
 * The signal types of docs/spec.md §2.4, every slug of it, in its order, listed explicitly (no discovery by glob).
 * Derived types (convergence, narratives) come last: they read the others' findings.
 */
import type { Detector } from "../detector.ts";
import bridgeFund from "./bridge-fund.ts";
import capitalEfficiency from "./capital-efficiency.ts";
import clusterUnlockRisk from "./cluster-unlock-risk.ts";
import coInvestmentNetwork from "./co-investment-network.ts";
import controversialProposal from "./controversial-proposal.ts";
import convergenceAlert from "./convergence-alert.ts";
import crossSectorCluster from "./cross-sector-cluster.ts";
import debtCeilingProximity from "./debt-ceiling-proximity.ts";
import developerNetwork from "./developer-network.ts";
import earningsHealth from "./earnings-health.ts";
import exchangeLiquidityRisk from "./exchange-liquidity-risk.ts";
import flowAnomaly from "./flow-anomaly.ts";
import governanceApathy from "./governance-apathy.ts";
import insiderAccumulation from "./insider-accumulation.ts";
import narrativeSynthesis from "./narrative-synthesis.ts";
import powerConcentration from "./power-concentration.ts";
import revenueMomentum from "./revenue-momentum.ts";
import sectorRotation from "./sector-rotation.ts";
import smartMoneyDivergence from "./smart-money-divergence.ts";
import stablecoinDepeg from "./stablecoin-depeg.ts";
import stablecoinSupplyShift from "./stablecoin-supply-shift.ts";
import treasuryHealth from "./treasury-health.ts";
import unlockPressure from "./unlock-pressure.ts";
import usagePriceMismatch from "./usage-price-mismatch.ts";
import utilizationStress from "./utilization-stress.ts";
import whaleCrossProtocol from "./whale-cross-protocol.ts";
import yieldAnomaly from "./yield-anomaly.ts";
import yieldSustainability from "./yield-sustainability.ts";

export const DETECTORS = [
  insiderAccumulation,
  whaleCrossProtocol,
  sectorRotation,
  flowAnomaly,
  smartMoneyDivergence,
  coInvestmentNetwork,
  crossSectorCluster,
  bridgeFund,
  developerNetwork,
  yieldAnomaly,
  yieldSustainability,
  utilizationStress,
  debtCeilingProximity,
  stablecoinDepeg,
  stablecoinSupplyShift,
  revenueMomentum,
  earningsHealth,
  usagePriceMismatch,
  capitalEfficiency,
  treasuryHealth,
  governanceApathy,
  controversialProposal,
  powerConcentration,
  unlockPressure,
  clusterUnlockRisk,
  exchangeLiquidityRisk,
  convergenceAlert,
  narrativeSynthesis,
] as const satisfies readonly Detector[];

/** The detector of a signal type, by its slug; undefined for a slug that names none. */
export function detectorFor(slug: string): Detector | undefined {
  return DETECTORS.find((d) => d.slug === slug);
}

/** The detectors of the signal types named (`--types`), in the catalog's order, and the names no type has. */
export function detectorsNamed(types: readonly string[]): { detectors: Detector[]; unknown: string[] } {
  return { detectors: DETECTORS.filter((d) => types.includes(d.slug)), unknown: types.filter((t) => !detectorFor(t)) };
}

/**
 * @module dataset/synthetic/vesting
 * Vesting schedules of governance tokens (team, investors, ecosystem, treasury allocations with
 * cliffs), their beneficiaries, and the insiders that follow from them: founders, lead investors
 * and market makers, each with a known wallet. Unlock events are time-series built from these
 * schedules.
 */
import { type GenContext, type VestingInfo, caip10, daysAgo, ethereum } from "./context.ts";

interface GroupSpec {
  group: VestingInfo["group"];
  share: [number, number];
  cliffMonths: [number, number];
  months: [number, number];
  frequency: VestingInfo["frequency"];
}

const GROUPS: GroupSpec[] = [
  { group: "team", share: [0.12, 0.25], cliffMonths: [6, 12], months: [36, 48], frequency: "monthly" },
  { group: "investors", share: [0.1, 0.25], cliffMonths: [6, 12], months: [24, 36], frequency: "monthly" },
  { group: "ecosystem", share: [0.15, 0.35], cliffMonths: [0, 3], months: [36, 60], frequency: "daily" },
  { group: "treasury", share: [0.05, 0.15], cliffMonths: [3, 6], months: [24, 48], frequency: "quarterly" },
];

export function generateVesting(ctx: GenContext): void {
  const { world, rng, source } = ctx;
  const wallets = new Set<string>();
  const giveWallet = (holder: string) => {
    if (wallets.has(holder)) return;
    wallets.add(holder);
    if (world.entities.get(holder)?.type === "Person") world.attr(holder, "walletAddress", caip10(ethereum(ctx), `0x${rng.hex(20)}`), source);
  };

  for (const protocol of ctx.protocols) {
    if (!protocol.token || world.entities.get(protocol.id)!.source !== source || / V\d$/.test(protocol.name)) continue;
    const team = ctx.teams.get(protocol.id) ?? [];
    const backers = ctx.investors.get(protocol.id) ?? [];
    if (backers.length === 0 && !rng.chance(0.4)) continue;
    const token = world.entities.get(protocol.token)!;
    // Token generation: between three years and a month ago, so schedules are mid-flight.
    const tge = rng.int(30, 1100);
    for (const spec of GROUPS) {
      if (spec.group === "investors" && backers.length === 0) continue;
      const share = Number((spec.share[0] + rng.next() * (spec.share[1] - spec.share[0])).toFixed(4));
      const cliffMonths = rng.int(spec.cliffMonths[0], spec.cliffMonths[1]);
      const months = rng.int(spec.months[0], spec.months[1]);
      const schedule: VestingInfo = {
        id: world.allocateId("VestingSchedule", `${token.symbol}-${protocol.root}-${spec.group}`),
        token: protocol.token,
        group: spec.group,
        share,
        start: daysAgo(ctx, tge),
        cliff: daysAgo(ctx, tge - cliffMonths * 30),
        end: daysAgo(ctx, tge - months * 30),
        frequency: spec.frequency,
      };
      world.addEntity({
        id: schedule.id,
        type: "VestingSchedule",
        labels: ["VestingSchedule"],
        name: `${token.symbol} ${spec.group} vesting`,
        source,
        prominence: 0.05,
      });
      world.rel(schedule.id, "vestingOf", protocol.token, source);
      world.attr(schedule.id, "allocationGroup", spec.group, source);
      world.attr(schedule.id, "allocationShare", share, source);
      world.attr(schedule.id, "vestingStart", schedule.start, source);
      world.attr(schedule.id, "cliffDate", schedule.cliff, source);
      world.attr(schedule.id, "vestingEnd", schedule.end, source);
      world.attr(schedule.id, "unlockFrequency", spec.frequency, source);
      const beneficiaries =
        spec.group === "team" ? team.slice(0, 4) : spec.group === "investors" ? backers.slice(0, 6) : [protocol.dao ?? protocol.company].filter((x): x is string => Boolean(x));
      for (const beneficiary of beneficiaries) world.rel(schedule.id, "beneficiary", beneficiary, source);
      ctx.schedules.push(schedule);
    }
    // Insiders: the founders and the lead investors hold allocations; market makers hold inventory.
    const insiders = [...team.slice(0, 2), ...backers.slice(0, 3)];
    for (const insider of insiders) {
      world.rel(insider, "insiderOf", protocol.token, source);
      giveWallet(insider);
    }
    for (const holder of [...backers.slice(0, 2), protocol.dao].filter((x): x is string => Boolean(x))) {
      world.rel(holder, "topHolderOf", protocol.token, source);
    }
  }
}

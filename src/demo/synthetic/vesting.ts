/**
 * @module demo/synthetic/vesting
 * Vesting schedules of governance tokens (team, investors, ecosystem, treasury allocations with
 * cliffs), their beneficiaries, and the insiders that follow from them: founders, lead investors
 * and market makers, each with a known wallet. Unlock events are time-series built from these
 * schedules.
 */
import { type GenContext, type VestingInfo, caip10, daysAgo, ethereum, isGenerated } from "./context.ts";

interface GroupSpec {
  group: VestingInfo["group"];
  share: [number, number];
  cliffMonths: [number, number];
  months: [number, number];
  frequency: VestingInfo["frequency"];
}

/** At least this share of supply circulates outside vesting (the float at token generation). */
export const MIN_FLOAT = 0.3;

const GROUPS: GroupSpec[] = [
  { group: "team", share: [0.12, 0.25], cliffMonths: [6, 12], months: [36, 48], frequency: "monthly" },
  { group: "investors", share: [0.1, 0.25], cliffMonths: [6, 12], months: [24, 36], frequency: "monthly" },
  { group: "ecosystem", share: [0.15, 0.35], cliffMonths: [0, 3], months: [36, 60], frequency: "monthly" },
  { group: "treasury", share: [0.05, 0.15], cliffMonths: [3, 6], months: [24, 48], frequency: "quarterly" },
];

export function generateVesting(ctx: GenContext): void {
  const { world, rng, source } = ctx;
  const walletOf = (holder: string): string => {
    let wallet = ctx.wallets.get(holder);
    if (!wallet) {
      wallet = caip10(ethereum(ctx), `0x${rng.hex(20)}`);
      ctx.wallets.set(holder, wallet);
      world.attr(holder, "walletAddress", wallet, source);
    }
    return wallet;
  };

  for (const protocol of ctx.protocols) {
    if (!protocol.token || !isGenerated(ctx, protocol.id) || / V\d$/.test(protocol.name)) continue;
    const team = ctx.teams.get(protocol.id) ?? [];
    const backers = ctx.investors.get(protocol.id) ?? [];
    if (backers.length === 0 && !rng.chance(0.4)) continue;
    const token = world.entities.get(protocol.token)!;
    // Token generation: between three years and a month ago, so schedules are mid-flight.
    const tge = rng.int(30, 1100);
    const groups = GROUPS.filter((spec) => spec.group !== "investors" || backers.length > 0);
    const drawn = groups.map((spec) => spec.share[0] + rng.next() * (spec.share[1] - spec.share[0]));
    // Vested allocations leave at least MIN_FLOAT of the supply to circulate from the start.
    const scale = Math.min(1, (1 - MIN_FLOAT) / drawn.reduce((a, b) => a + b, 0));
    for (const [g, spec] of groups.entries()) {
      const share = Number((drawn[g]! * scale).toFixed(4));
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
    const insiders: [string, "team" | "investor"][] = [
      ...team.slice(0, 2).map((h): [string, "team"] => [h, "team"]),
      ...backers.slice(0, 3).map((h): [string, "investor"] => [h, "investor"]),
    ];
    for (const [insider, role] of insiders) {
      world.rel(insider, "insiderOf", protocol.token, source);
      ctx.insiders.push({ token: protocol.token, holder: insider, role, wallet: walletOf(insider) });
    }
    for (const holder of [...backers.slice(0, 2), protocol.dao].filter((x): x is string => Boolean(x))) {
      world.rel(holder, "topHolderOf", protocol.token, source);
    }
  }
}

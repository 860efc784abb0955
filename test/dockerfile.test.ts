/**
 * The Dockerfile, kept true without a Docker engine: linted by dockerfile-utils (the validator
 * behind VS Code's Docker support) with every rule an error, and read with its parser (dockerfile-ast)
 * for what the README promises of the image: built in a stage of its own by `npm run build`, run as
 * an unprivileged user, the data directory a volume, and a health check on readiness.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DockerfileParser, type Instruction, ModifiableInstruction } from "dockerfile-ast";
import { type ValidatorSettings, ValidationSeverity, validate } from "dockerfile-utils";
import pkg from "../package.json" with { type: "json" };

const text = readFileSync(join(import.meta.dir, "..", "Dockerfile"), "utf8");

/** Every optional rule of the validator raised to an error: nothing is waved through. */
const STRICT: ValidatorSettings = {
  deprecatedMaintainer: ValidationSeverity.ERROR,
  directiveCasing: ValidationSeverity.ERROR,
  emptyContinuationLine: ValidationSeverity.ERROR,
  instructionCasing: ValidationSeverity.ERROR,
  instructionCmdMultiple: ValidationSeverity.ERROR,
  instructionEntrypointMultiple: ValidationSeverity.ERROR,
  instructionHealthcheckMultiple: ValidationSeverity.ERROR,
  instructionJSONInSingleQuotes: ValidationSeverity.ERROR,
  instructionWorkdirRelative: ValidationSeverity.ERROR,
};

/** The instructions of each stage, in order, with the stage's name (FROM ... AS name). */
function stages(content: string): { name: string | undefined; image: string; instructions: Instruction[] }[] {
  const dockerfile = DockerfileParser.parse(content);
  const froms = dockerfile.getFROMs();
  return froms.map((from, i) => {
    const start = from.getRange().start.line;
    const end = froms[i + 1]?.getRange().start.line ?? Number.POSITIVE_INFINITY;
    const instructions = dockerfile.getInstructions().filter((x) => x.getRange().start.line > start && x.getRange().start.line < end);
    return { name: from.getBuildStage() ?? undefined, image: from.getImageName() ?? "", instructions };
  });
}

const args = (instruction: Instruction) => instruction.getArgumentsContent() ?? "";
/** A flag's value (--from=build, --start-period=180s), for instructions that take flags. */
const flag = (instruction: Instruction, name: string) =>
  instruction instanceof ModifiableInstruction ? instruction.getFlags().find((f) => f.getName() === name)?.getValue() : undefined;
const all = (instructions: Instruction[], keyword: string) => instructions.filter((x) => x.getKeyword() === keyword);

describe("Dockerfile", () => {
  test("passes the linter with every rule an error", () => {
    const problems = validate(text, STRICT).map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
    expect(problems).toEqual([]);
  });

  test("the linter does find problems: a broken copy of it fails", () => {
    // Two health checks and a relative WORKDIR: errors under the settings above, so a pass means something.
    const broken = text.replace("HEALTHCHECK", "WORKDIR data\nHEALTHCHECK CMD true\nHEALTHCHECK");
    expect(validate(broken, STRICT).length).toBeGreaterThanOrEqual(2);
  });

  test("builds the executable in a stage of its own with the build command, from the lockfile", () => {
    const [build, ...rest] = stages(text);
    expect(rest.length).toBeGreaterThanOrEqual(1);
    expect(build!.name).toBeDefined();
    const runs = all(build!.instructions, "RUN").map(args);
    expect(runs.some((r) => /\bnpm ci\b/.test(r))).toBe(true);
    expect(pkg.scripts.build).toBe("bun scripts/build.ts");
    expect(runs.some((r) => /\bnpm run build\b/.test(r))).toBe(true);
    // The final stage takes the executable alone from the build stage.
    const final = stages(text).at(-1)!;
    const copies = all(final.instructions, "COPY");
    expect(copies.map((c) => [flag(c, "from"), args(c)])).toContainEqual([build!.name, "/src/dist/ckg /usr/local/bin/ckg"]);
    expect(final.image).not.toContain("node");
  });

  test("runs as an unprivileged user, with the data directory a volume and a health check on /readyz", () => {
    const final = stages(text).at(-1)!;
    const users = all(final.instructions, "USER").map(args);
    expect(users).toHaveLength(1);
    expect(["root", "0"]).not.toContain(users[0]!.split(":")[0]);
    // USER comes before what runs: the entrypoint and the health check.
    const order = final.instructions.map((x) => x.getKeyword());
    expect(order.indexOf("USER")).toBeLessThan(order.indexOf("ENTRYPOINT"));

    const env = all(final.instructions, "ENV").map(args).join(" ");
    const dataDir = /CKG_DATA_DIR=(\S+)/.exec(env)?.[1];
    const port = /CKG_PORT=(\d+)/.exec(env)?.[1];
    expect(dataDir).toBeDefined();
    expect(all(final.instructions, "VOLUME").map(args)).toContain(dataDir!);
    expect(all(final.instructions, "EXPOSE").map(args)).toContain(port!);

    const health = all(final.instructions, "HEALTHCHECK");
    expect(health).toHaveLength(1);
    expect(args(health[0]!)).toContain(`http://127.0.0.1:${port}/readyz`);
    expect(flag(health[0]!, "start-period")).toMatch(/^\d+s$/); // the first start builds the default dataset
    expect(all(final.instructions, "ENTRYPOINT").map(args)).toEqual(['["/usr/local/bin/ckg"]']);
    expect(all(final.instructions, "CMD").map(args)).toEqual(['["serve"]']);
  });
});

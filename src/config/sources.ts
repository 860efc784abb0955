/**
 * @module config/sources
 * Where setting values come from, lowest precedence first: the config file, `CKG_*` environment
 * variables, command-line flags. Each source may name a setting by its current name or a former
 * one (an alias); within one source, two names of one setting with different values are a problem
 * naming both.
 */
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { z } from "zod";
import { type SettingName, SETTINGS, envName, flagName } from "./settings.ts";

/** A value as given, and where: `CKG_PORT`, `--port`, or the file's path. */
export interface Given {
  value: unknown;
  origin: string;
}

/** Every name a setting is read under (current and former), to the setting. */
const BY_NAME = new Map<string, SettingName>(
  (Object.keys(SETTINGS) as SettingName[]).flatMap((name) => [name, ...(SETTINGS[name].aliases ?? [])].map((known) => [known, name] as const)),
);

/** The names a setting is read under, current first. */
export function namesOf(name: SettingName): string[] {
  return [name, ...(SETTINGS[name].aliases ?? [])];
}

type Entry = { name: string; value: unknown; origin: string };

/** The values given, by setting: file, then environment, then flags, each overriding the one before. */
export function givenValues(
  input: { flags?: Partial<Record<string, string | boolean>>; file?: string },
  env: Record<string, string | undefined>,
  problems: string[],
): Map<SettingName, Given> {
  const sources: Entry[][] = [];
  if (input.file) sources.push(fileEntries(input.file, problems));
  sources.push(
    [...BY_NAME.keys()].flatMap((name) => {
      const value = env[envName(name)];
      return value !== undefined && value !== "" ? [{ name, value, origin: envName(name) }] : [];
    }),
  );
  sources.push(Object.entries(input.flags ?? {}).flatMap(([name, value]) => (value === undefined ? [] : [{ name, value, origin: `--${flagName(name)}` }])));

  const given = new Map<SettingName, Given>();
  for (const entries of sources) {
    const here = new Map<SettingName, Entry>();
    for (const entry of entries) {
      const setting = BY_NAME.get(entry.name);
      if (!setting) {
        problems.push(`unknown setting "${entry.name}" (from ${entry.origin})`);
        continue;
      }
      const before = here.get(setting);
      if (before && String(before.value).trim() !== String(entry.value).trim()) {
        const shown = (e: Entry) => `${e.origin}${e.name === setting ? "" : " (its former name)"} = ${SETTINGS[setting].secret ? "(hidden)" : JSON.stringify(e.value)}`;
        problems.push(`setting ${setting} is given twice with different values: ${shown(before)} and ${shown(entry)}`);
      }
      // The current name wins over a former one in the same source (they agree, or the problem is said).
      if (!before || entry.name === setting) here.set(setting, entry);
    }
    for (const [setting, entry] of here) given.set(setting, { value: entry.value, origin: entry.origin });
  }
  return given;
}

function fileEntries(path: string, problems: string[]): Entry[] {
  const entries: Entry[] = [];
  for (const [key, value] of Object.entries(readConfigFile(path, problems))) {
    if (BY_NAME.has(key)) entries.push({ name: key, value, origin: path });
    else problems.push(`unknown setting "${key}" in ${path} (known: ${Object.keys(SETTINGS).join(", ")})`);
  }
  return entries;
}

function readConfigFile(path: string, problems: string[]): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    problems.push(`config file ${path} cannot be read: ${(error as Error).message}`);
    return {};
  }
  try {
    const parsed: unknown = extname(path).toLowerCase() === ".toml" ? Bun.TOML.parse(text) : JSON.parse(text);
    const object = z.record(z.string(), z.unknown()).safeParse(parsed);
    if (!object.success) {
      problems.push(`config file ${path} must hold an object of settings`);
      return {};
    }
    return object.data;
  } catch (error) {
    problems.push(`config file ${path} is not valid ${extname(path) === ".toml" ? "TOML" : "JSON"}: ${(error as Error).message}`);
    return {};
  }
}

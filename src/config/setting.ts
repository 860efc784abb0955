/**
 * @module config/setting
 * One setting's description (kind, schema, default, help, former names), and the helper the
 * setting tables use.
 */
import type { z } from "zod";

/** How a raw string from a flag or the environment is turned into a value before validation. */
export type SettingKind = "string" | "integer" | "boolean";

export interface Setting<S extends z.ZodType = z.ZodType, D extends z.input<S> | undefined = z.input<S> | undefined> {
  kind: SettingKind;
  schema: S;
  /** Shown in --help; `undefined` means "unset". Typed as given, so code falling back on it reads a value, not "maybe unset". */
  default: D;
  help: string;
  /** Never printed in logs or /readyz (keys, tokens). */
  secret?: boolean;
  /**
   * Former names, still read (as flag, `CKG_*` variable and file key) so a renamed setting breaks no
   * deployment; docs/configuration.md and --help say so.
   */
  aliases?: readonly string[];
}

export function setting<S extends z.ZodType, D extends z.input<S> | undefined>(
  kind: SettingKind,
  schema: S,
  defaultValue: D,
  help: string,
  extra: { secret?: boolean; aliases?: readonly string[] } = {},
): Setting<S, D> {
  return { kind, schema, default: defaultValue, help, ...extra };
}

/** The values a table of settings gives, by name (a whole configuration, or one provider's part of it). */
export type SettingValues<T extends Record<string, Setting>> = { [K in keyof T]: z.output<T[K]["schema"]> };

export function envName(name: string): string {
  return `CKG_${name.toUpperCase()}`;
}

export function flagName(name: string): string {
  return name.replaceAll("_", "-");
}

/**
 * A rule between settings, checked with the configuration (loadConfig) so every problem is reported
 * at once, before anything starts: "sign-in needs base_url", "payments settled here need an RPC".
 */
export interface SettingRule<V> {
  /** The settings it relates: it applies to a command that reads them all, and waits while one of them is itself invalid (already reported). */
  settings: readonly (keyof V & string)[];
  /** The rule in words, for people: docs/configuration.md lists every rule by it. */
  summary: string;
  /** What is wrong, one line per problem, each naming its settings through `describe` (name, origin, value). */
  check(values: V, describe: (name: keyof V & string) => string): string[];
}

/**
 * @module config/setting
 * One setting's description (kind, schema, default, help), and the helper the setting tables use.
 */
import type { z } from "zod";

/** How a raw string from a flag or the environment is turned into a value before validation. */
export type SettingKind = "string" | "integer" | "boolean";

export interface Setting<S extends z.ZodType = z.ZodType> {
  kind: SettingKind;
  schema: S;
  /** Shown in --help; `undefined` means "unset". */
  default: z.input<S> | undefined;
  help: string;
  /** Never printed in logs or /readyz (keys, tokens). */
  secret?: boolean;
}

export function setting<S extends z.ZodType>(
  kind: SettingKind,
  schema: S,
  defaultValue: z.input<S> | undefined,
  help: string,
  extra: { secret?: boolean } = {},
): Setting<S> {
  return { kind, schema, default: defaultValue, help, ...extra };
}

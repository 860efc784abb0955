/**
 * @module version
 * The server's build version (sent in the `x-ckg-version` header and shown by `ckg --version`).
 * scripts/build.ts bakes the version and commit into the executable; a source checkout reports
 * the package version with a `+dev` suffix.
 */
import pkg from "../package.json" with { type: "json" };

declare const CKG_BUILD_VERSION: string | undefined;

export const VERSION: string = typeof CKG_BUILD_VERSION === "string" ? CKG_BUILD_VERSION : `${pkg.version}+dev`;

/** The interface version of interface-spec.md (OpenAPI `info.version`). */
export const INTERFACE_VERSION = "1.0.0";

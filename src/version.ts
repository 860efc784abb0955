/**
 * @module version
 * The server's build version (sent in the `x-ckg-version` header) and what `ckg --version` prints.
 * scripts/build.ts bakes the version, the commit and the build date into the executable; a source
 * checkout reports the package version with a `+dev` suffix.
 */
import pkg from "../package.json" with { type: "json" };

declare const CKG_BUILD_VERSION: string | undefined;
declare const CKG_BUILD_COMMIT: string | undefined;
declare const CKG_BUILD_DATE: string | undefined;

const BUILT = typeof CKG_BUILD_VERSION === "string" && typeof CKG_BUILD_COMMIT === "string" && typeof CKG_BUILD_DATE === "string";

/** `0.1.0+abc1234` in an executable, `0.1.0+dev` from source. */
export const VERSION: string = BUILT ? `${CKG_BUILD_VERSION}+${CKG_BUILD_COMMIT}` : `${pkg.version}+dev`;

/** `ckg 0.1.0 (commit abc1234, built 2026-11-27)`, or `ckg 0.1.0+dev (from source)`. */
export const VERSION_LINE: string = BUILT ? `ckg ${CKG_BUILD_VERSION} (commit ${CKG_BUILD_COMMIT}, built ${CKG_BUILD_DATE})` : `ckg ${VERSION} (from source)`;

/** The interface version of docs/spec.md §9 (OpenAPI `info.version`). */
export const INTERFACE_VERSION = "1.0.0";

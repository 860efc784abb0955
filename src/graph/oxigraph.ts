/**
 * @module graph/oxigraph
 * Oxigraph's WebAssembly build, initialised from the wasm file embedded in the executable.
 * The package's Node entry reads the wasm next to its own source, which a compiled binary does not
 * have; the web entry takes the module bytes from us instead.
 */
import { readFileSync } from "node:fs";
import * as oxigraph from "oxigraph/web.js";
import wasmPath from "oxigraph/web_bg.wasm" with { type: "file" };

// The package's own typings describe the wasm exports; the file import gives us its path.
oxigraph.initSync({ module: readFileSync(wasmPath as unknown as string) });

export { oxigraph };
export type { NamedNode, Quad } from "oxigraph/web.js";

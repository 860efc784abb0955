/**
 * @module api/console-files
 * The web console's page and its bundled script and styles, for the app to serve as routes like
 * any other (Bun's own route table for an HTML import would skip the request id, the version
 * header, the rate limit and the log line). In the executable, Bun bundled them at build time (the
 * HTML import's `files`); from source they are bundled here, once, on first use. Either way the
 * bundle names its files at the root (`/chunk-x.js`); they are served under CONSOLE_ASSETS, where
 * the page and styles are pointed.
 */
import { basename } from "node:path";
// The web console: Bun bundles the page's script and styles (and embeds them in the executable).
import consolePage from "../console/index.html";

export const CONSOLE_ASSETS = "/console/assets";

export interface ConsoleFile {
  body: Uint8Array;
  contentType: string;
  etag: string;
}

export interface ConsoleFiles {
  page: ConsoleFile;
  /** By file name (content-hashed by the bundler). */
  assets: ReadonlyMap<string, ConsoleFile>;
}

interface Bundled {
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

let loaded: Promise<ConsoleFiles> | undefined;

export function consoleFiles(): Promise<ConsoleFiles> {
  if (!loaded) {
    loaded = bundledFiles().then(serveable);
    // A failed bundle is tried again on the next request instead of failing every one after it.
    loaded.catch(() => (loaded = undefined));
  }
  return loaded;
}

/** The bundle's files: Bun's from the executable, or bundled now from the sources. */
async function bundledFiles(): Promise<Bundled[]> {
  if (consolePage.files) {
    return Promise.all(
      consolePage.files.map(async (file) => ({
        name: file.path === consolePage.index ? "index.html" : basename(file.path),
        contentType: file.headers["content-type"],
        bytes: await Bun.file(file.path).bytes(),
      })),
    );
  }
  // publicPath "/": the same references the executable's bundle has, so one rewrite serves both.
  const build = await Bun.build({ entrypoints: [consolePage.index], target: "browser", minify: true, publicPath: "/" });
  if (!build.success) throw new AggregateError(build.logs, "bundling the web console failed");
  return Promise.all(build.outputs.map(async (output) => ({ name: basename(output.path), contentType: output.type, bytes: new Uint8Array(await output.arrayBuffer()) })));
}

function serveable(bundled: Bundled[]): ConsoleFiles {
  const names = bundled.filter((f) => f.name !== "index.html").map((f) => f.name);
  // `"/chunk-x.js"` or `url(/chunk-x.woff)` in the page or a style sheet -> under CONSOLE_ASSETS.
  const escaped = names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const reference = new RegExp(`(["'(])/(${escaped.join("|")})(?=["')])`, "g");
  const file = ({ contentType, bytes }: Bundled): ConsoleFile => {
    const rewrite = names.length > 0 && /^text\/(html|css)/.test(contentType);
    const body = rewrite ? new TextEncoder().encode(new TextDecoder().decode(bytes).replace(reference, `$1${CONSOLE_ASSETS}/$2`)) : bytes;
    return { body, contentType, etag: `"${Bun.hash(body).toString(36)}"` };
  };
  const page = bundled.find((f) => f.name === "index.html");
  if (!page) throw new Error("the web console's bundle has no index.html");
  return { page: file(page), assets: new Map(bundled.filter((f) => f !== page).map((f) => [f.name, file(f)])) };
}

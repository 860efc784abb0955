// Files embedded by `import x from "..." with { type: "file" }` resolve to a path (on disk in
// development, inside the executable's virtual file system once compiled).
declare module "*.wasm" {
  const path: string;
  export default path;
}
declare module "*.node" {
  const path: string;
  export default path;
}
declare module "*.so" {
  const path: string;
  export default path;
}
// Text files embedded with `with { type: "text" }`.
declare module "*.ttl" {
  const text: string;
  export default text;
}
declare module "*.tsv" {
  const text: string;
  export default text;
}
declare module "*.jsonl" {
  const text: string;
  export default text;
}

// Stylesheets imported for their side effect: Bun's bundler puts them in the page's CSS.
declare module "*.css";

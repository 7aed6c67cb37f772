import type { NextConfig } from 'next';

const config: NextConfig = {
  // The recipes share ../shared (and one node_modules): the project root for bundling and tracing is
  // the parent folder. A standalone app does not need these two lines.
  turbopack: { root: `${import.meta.dirname}/..` },
  outputFileTracingRoot: `${import.meta.dirname}/..`,
};

export default config;

/**
 * How Node runs the web server (`scripts/start.ts`), in one place for `npm start` (package.json
 * repeats it, and a unit test holds the two together), the browser tests, the reliability suite
 * and the benchmark.
 *
 * `--max-semi-space-size=2` (MiB): V8's young generation otherwise grows to 32 MiB per semi-space
 * under a large upload, and the socket buffers the body arrives in are external memory released
 * only when a collection finds their wrappers dead. Small semi-spaces collect every few MiB, which
 * keeps a 1 GB upload's growth near +35 MB instead of +85 MB; the benchmark's page, API and load
 * timings did not move with it.
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=2'] as const;

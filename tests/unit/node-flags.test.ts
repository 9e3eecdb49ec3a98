import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../scripts/node-flags.ts';

describe('how Node runs the web server', () => {
  it('is the same for `npm start` as for the tests and the benchmark', () => {
    const { scripts } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    // `exec`: the shell npm runs the script in becomes the server, so the SIGTERM npm forwards
    // reaches it. Without it, Debian's dash stayed between them, died of the SIGTERM and left the
    // server running, orphaned (seen with `kill <npm pid>`).
    expect(scripts.start).toBe(['exec', 'node', ...SERVER_NODE_FLAGS, 'scripts/start.ts'].join(' '));
  });
});

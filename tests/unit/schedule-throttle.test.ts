/**
 * The schedule ticks every minute, but some of its work (looking for files without a live remote
 * pin, which reads every served CID) runs only every few hours: `atMostEvery`.
 */
import { describe, expect, it } from 'vitest';
import { atMostEvery } from '../../src/lib/server/background.ts';

describe('atMostEvery', () => {
  it('runs on the first tick, then only once the interval has passed since the last run', async () => {
    let clock = 1_000;
    let runs = 0;
    const tick = atMostEvery(
      60_000,
      async () => {
        runs += 1;
      },
      () => clock,
    );
    await tick();
    expect(runs).toBe(1);
    for (const at of [1_000, 30_000, 60_999]) {
      clock = at;
      await tick();
    }
    expect(runs).toBe(1);
    clock = 61_000;
    await tick();
    expect(runs).toBe(2);
    clock = 100_000;
    await tick();
    expect(runs).toBe(2);
    clock = 121_000;
    await tick();
    expect(runs).toBe(3);
  });

  it('passes a failure on to the schedule, and tries again at the next tick: only a success starts the interval', async () => {
    let clock = 0;
    let runs = 0;
    let failing = true;
    const tick = atMostEvery(
      10,
      async () => {
        runs += 1;
        if (failing) throw new Error('base de datos caída');
      },
      () => clock,
    );
    await expect(tick()).rejects.toThrow('base de datos caída');
    clock = 1;
    await expect(tick()).rejects.toThrow('base de datos caída');
    expect(runs).toBe(2);
    failing = false;
    clock = 2;
    await tick();
    expect(runs).toBe(3);
    clock = 11;
    await tick();
    expect(runs).toBe(3);
    clock = 12;
    await tick();
    expect(runs).toBe(4);
  });
});

/**
 * Turns (src/lib/server/concurrency/turns.ts), the hand-off the job worker and the read-through
 * share: served in order, a turn given back passes to the next waiter, an abort removes only its
 * own waiter, giving back twice gives back once, and a full line refuses at once.
 */
import { describe, expect, test } from 'vitest';
import { Turns } from '../../../src/lib/server/concurrency/turns.ts';

const never = () => new AbortController().signal;
/** Lets every settled promise's reactions run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('Turns', () => {
  test('gives `limit` turns per key at once, then serves the waiters in the order they came', async () => {
    const turns = new Turns(2);
    const first = await turns.take('a', never());
    await turns.take('a', never());
    expect(turns.free('a')).toBe(false);
    // Another key has turns of its own.
    expect(turns.free('b')).toBe(true);
    const giveBackB = await turns.take('b', never());

    const order: string[] = [];
    const waiters = ['w1', 'w2', 'w3'].map((name) =>
      turns.take('a', never()).then((giveBack) => {
        order.push(name);
        return giveBack;
      }),
    );
    await settle();
    expect(order).toEqual([]);

    first();
    await settle();
    expect(order).toEqual(['w1']);
    // The turn passed straight on: none is free for a newcomer to jump the line with.
    expect(turns.free('a')).toBe(false);

    (await waiters[0]!)();
    await settle();
    expect(order).toEqual(['w1', 'w2']);
    (await waiters[1]!)();
    await settle();
    expect(order).toEqual(['w1', 'w2', 'w3']);
    giveBackB();
    expect(turns.free('b')).toBe(true);
  });

  test('an abort while waiting removes that waiter only, with the signal’s reason', async () => {
    const turns = new Turns(1);
    const holder = await turns.take('k', never());
    const aborted = new AbortController();
    const order: string[] = [];
    const before = turns.take('k', never()).then((giveBack) => (order.push('before'), giveBack));
    const leaving = turns.take('k', aborted.signal);
    const after = turns.take('k', never()).then((giveBack) => (order.push('after'), giveBack));

    const reason = new Error('se acabó el tiempo');
    aborted.abort(reason);
    await expect(leaving).rejects.toBe(reason);

    holder();
    await settle();
    expect(order).toEqual(['before']);
    (await before)();
    await settle();
    // The one behind the aborted waiter is next: the abort took no one else's place.
    expect(order).toEqual(['before', 'after']);
    (await after)();
    expect(turns.free('k')).toBe(true);
  });

  test('a signal aborted before the wait refuses at once, but a free turn is still given', async () => {
    const turns = new Turns(1);
    const aborted = new AbortController();
    aborted.abort(new Error('ya no'));
    const giveBack = await turns.take('k', aborted.signal);
    await expect(turns.take('k', aborted.signal)).rejects.toThrow('ya no');
    giveBack();
    expect(turns.free('k')).toBe(true);
  });

  test('giving a turn back twice gives it back once', async () => {
    const turns = new Turns(2);
    const giveBack = await turns.take('k', never());
    const other = await turns.take('k', never());
    giveBack();
    giveBack();
    // Had the second call counted, both turns would be free and a third taker would hold a turn beside `other`.
    expect(turns.free('k')).toBe(true);
    await turns.take('k', never());
    expect(turns.free('k')).toBe(false);

    let third = false;
    const waiting = turns.take('k', never()).then(() => (third = true));
    giveBack();
    await settle();
    expect(third).toBe(false);
    other();
    await waiting;
    expect(third).toBe(true);
  });

  test('run gives the turn back when the task settles, whether it succeeds or fails', async () => {
    const turns = new Turns(1);
    await expect(turns.run('k', never(), async () => 'hecho')).resolves.toBe('hecho');
    expect(turns.free('k')).toBe(true);
    await expect(turns.run('k', never(), async () => Promise.reject(new Error('falló')))).rejects.toThrow('falló');
    expect(turns.free('k')).toBe(true);
  });

  test('a full line refuses the next waiter at once with the given error, and takes waiters again once it moves', async () => {
    const turns = new Turns(1, { maxWaiting: 2, tooManyWaiting: () => new Error('demasiadas en espera') });
    const holder = await turns.take('k', never());
    const first = turns.take('k', never());
    const second = turns.take('k', never());
    await expect(turns.take('k', never())).rejects.toThrow('demasiadas en espera');
    // The cap is per key.
    await turns.take('other', never());

    holder();
    (await first)();
    // One waiter left: there is room in line again.
    const third = turns.take('k', never());
    (await second)();
    (await third)();
    expect(turns.free('k')).toBe(true);
  });

  test('the cap is checked before the signal: a full line says so even to an aborted caller', async () => {
    const turns = new Turns(1, { maxWaiting: 0, tooManyWaiting: () => new Error('llena') });
    await turns.take('k', never());
    const aborted = new AbortController();
    aborted.abort(new Error('abortada'));
    await expect(turns.take('k', aborted.signal)).rejects.toThrow('llena');
  });
});

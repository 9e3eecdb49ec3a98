import { describe, expect, it } from 'vitest';
import { storageStatusLabel } from '../../src/lib/domain/storage.ts';

const at = (iso: string) => new Date(iso);

describe('the storage status of a record', () => {
  it('is Remote without pins', () => {
    expect(storageStatusLabel([])).toBe('Remote');
  });
  it('is Pinned when any pin is pinned, whatever came later', () => {
    expect(
      storageStatusLabel([
        { status: 'pinned', updatedAt: at('2026-01-01') },
        { status: 'failed', updatedAt: at('2026-06-01') },
      ]),
    ).toBe('Pinned');
  });
  it('is otherwise the status of the latest pin', () => {
    expect(
      storageStatusLabel([
        { status: 'queued', updatedAt: at('2026-01-01') },
        { status: 'failed', updatedAt: at('2026-06-01') },
        { status: 'pinning', updatedAt: at('2026-03-01') },
      ]),
    ).toBe('Failed');
  });
});

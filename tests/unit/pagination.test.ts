import { describe, expect, it } from 'vitest';
import { paginationSlots } from '../../src/lib/pagination.ts';

describe('pagination slots', () => {
  it('show every page when there are 8 or fewer', () => {
    expect(paginationSlots(1, 1)).toEqual([1]);
    expect(paginationSlots(1, 0)).toEqual([1]);
    expect(paginationSlots(3, 8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('near the start: the first pages, an ellipsis, the last', () => {
    expect(paginationSlots(1, 20)).toEqual([1, 2, 3, 4, 5, 6, 'ellipsis', 20]);
    expect(paginationSlots(5, 20)).toEqual([1, 2, 3, 4, 5, 6, 'ellipsis', 20]);
  });

  it('in the middle: a window around the current page between two ellipses', () => {
    expect(paginationSlots(6, 20)).toEqual([1, 'ellipsis', 5, 6, 7, 8, 'ellipsis', 20]);
    expect(paginationSlots(10, 20)).toEqual([1, 'ellipsis', 9, 10, 11, 12, 'ellipsis', 20]);
    expect(paginationSlots(15, 20)).toEqual([1, 'ellipsis', 14, 15, 16, 17, 'ellipsis', 20]);
  });

  it('near the end: the first, an ellipsis, the last pages', () => {
    expect(paginationSlots(16, 20)).toEqual([1, 'ellipsis', 15, 16, 17, 18, 19, 20]);
    expect(paginationSlots(20, 20)).toEqual([1, 'ellipsis', 15, 16, 17, 18, 19, 20]);
  });

  it('never has more than 8 slots, always shows the current page and its neighbours', () => {
    for (const pages of [9, 10, 31, 107]) {
      for (let current = 1; current <= pages; current += 1) {
        const slots = paginationSlots(current, pages);
        expect(slots.length).toBeLessThanOrEqual(8);
        expect(slots).toContain(current);
        if (current > 1) expect(slots).toContain(current - 1);
        if (current < pages) expect(slots).toContain(current + 1);
        expect(slots[0]).toBe(1);
        expect(slots.at(-1)).toBe(pages);
      }
    }
  });

  it('clamps a page out of range', () => {
    expect(paginationSlots(99, 20)).toEqual(paginationSlots(20, 20));
    expect(paginationSlots(-3, 20)).toEqual(paginationSlots(1, 20));
  });
});

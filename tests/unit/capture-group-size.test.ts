/**
 * The size of a group of captures (`harvest/capture-groups.ts`): while the writer is busy with one
 * group, the files that come in join the next, but never more than `GROUP_MAX_FILES` of them, so
 * that one file failing mid-stream sends back a bounded number of others.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { CaptureGroups, GROUP_MAX_FILES, GROUP_WAIT_MS, type GroupFile } from '../../src/lib/server/harvest/capture-groups.ts';
import type { StagedUpload, StagingArea } from '../../src/lib/server/storage/index.ts';

/** A staging area that keeps nothing: the groups' bookkeeping is what is under test. */
const nowhere: StagingArea = {
  begin: () =>
    ({
      add: async () => ({ cid: 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku', size: 0 }),
      hold: async () => {},
      commit: async () => {},
      settle: async () => {},
      discard: async () => {},
    }) satisfies StagedUpload,
  sweep: async () => 0,
};

const fileNumbered = (id: number): GroupFile => ({ lease: { id, lockedBy: 'prueba', attempts: 1, reclaims: 0 } });

describe('groups of captures', () => {
  it(`close at ${GROUP_MAX_FILES} files even while the writer is busy, and every file is written once`, async () => {
    const written: number[][] = [];
    let freeWriter!: () => void;
    const writerBusy = new Promise<void>((resolve) => (freeWriter = resolve));
    const groups = new CaptureGroups<GroupFile>(nowhere, async (_staged, files) => {
      // The first group holds the writer until the others have all come in.
      if (written.length === 0) await writerBusy;
      written.push(files.map((file) => file.lease!.id));
      return new Set(files.map((file) => file.lease!.id));
    });
    const capture = async (id: number) => {
      const member = groups.join();
      await member.add(new Uint8Array(0));
      return member.submit(fileNumbered(id));
    };
    const first = capture(0);
    // Past the wait, the lone first file is taken by the writer, which then stays busy.
    await sleep(GROUP_WAIT_MS * 2);
    const others = Array.from({ length: 2 * GROUP_MAX_FILES + 1 }, (_, index) => capture(index + 1));
    await sleep(10);
    freeWriter();
    expect(await Promise.all([first, ...others])).toEqual(Array.from({ length: 2 * GROUP_MAX_FILES + 2 }, () => true));
    expect(written.map((group) => group.length)).toEqual([1, GROUP_MAX_FILES, GROUP_MAX_FILES, 1]);
    expect(written.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 2 * GROUP_MAX_FILES + 2 }, (_, id) => id));
  });
});

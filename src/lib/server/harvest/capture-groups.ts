/**
 * Group commit for captures: the files a worker captures at once share one staged upload and one
 * transaction, instead of a journal, a transaction and some twenty statements each. On the
 * embedded database's single connection that per-file cost, not the network, bounded how fast a
 * catalogue's files came in (issue #18, "Fast").
 *
 * Every capture that starts streaming joins the open group. The group closes (later captures
 * start the next one) once the writer is free and it holds `GROUP_FILES` files, or its first file
 * has waited `GROUP_WAIT_MS`, or at once when it has `GROUP_MAX_FILES` members; it is written as
 * soon as its other members have finished streaming.
 * On the embedded database a transaction's fixed cost (a dozen statements, each a round trip over
 * its socket) is most of a small file's: groups of 32 cost a fraction of groups of 4, while the
 * first file waits at most a tenth of a second more. A group one of whose members failed closes
 * at once, so that the captures after it do not join a group that will be handed back.
 *
 * All or nothing, per group: its files' records, captures, versions and job completions commit in
 * one transaction, and the staged blocks are moved (journalled once, `StagedUpload.commit`) inside
 * it, as for a single upload. A file that fails while streaming fails its own job only, but its
 * blocks may already be in the shared staging folder, where a commit would carry them into the
 * store with no record: its group is then discarded, and the files that had come in whole are
 * handed back to the queue untried (`HandBackJobError`, their attempt not counted), to be fetched
 * again in another group.
 */
import type { JobLease } from '../jobs/index.ts';
import { HandBackJobError } from '../jobs/index.ts';
import type { ByteSource } from '../storage/byte-source.ts';
import type { AddResult, StagedUpload, StagingArea } from '../storage/index.ts';

/** Files a group closes at, when the writer is free. */
export const GROUP_FILES = 32;

/** How long a group's first file waits for others, at most, once the writer is free. */
export const GROUP_WAIT_MS = 100;

/**
 * Files a group takes at most, streaming or submitted, writer free or not: the next capture opens
 * the next group. A worker holds up to a thousand captures (`jobs/worker.ts`), and while a group
 * is written the open one would otherwise take every file that comes in meanwhile; one file that
 * fails while streaming (a cut connection, an executable) sends its whole group back to be fetched
 * again, so a group stays a size whose loss is cheap.
 */
export const GROUP_MAX_FILES = 256;

/** A member's file, as the group's writer takes it. */
export interface GroupFile {
  lease: JobLease | null;
}

/**
 * Writes a closed group's files and commits its staged upload, in one transaction; answers the
 * jobs it marked done.
 */
export type GroupWriter<F extends GroupFile> = (staged: StagedUpload, files: F[]) => Promise<Set<number>>;

interface Group<F extends GroupFile> {
  staged: StagedUpload;
  /** Captures streaming into the group, or done streaming but not yet submitted. */
  members: number;
  files: Array<{ file: F; resolve: (completed: boolean) => void; reject: (error: unknown) => void }>;
  /** A member failed with blocks possibly staged: nothing of this group may be committed. */
  poisoned: boolean;
  /** When its first file was submitted (`performance.now()`), null before. */
  firstAt: number | null;
}

/** One capture's place in a group: stream its file in, then submit it (or leave). */
export interface GroupMember<F extends GroupFile> {
  add(source: ByteSource): Promise<AddResult>;
  /** Resolves once the group is committed: true when the job was marked done in its transaction. */
  submit(file: F): Promise<boolean>;
  /** The capture ends without submitting (after a failure); safe after `submit`. */
  leave(): void;
}

export class CaptureGroups<F extends GroupFile> {
  #open: Group<F> | null = null;
  #closed: Array<Group<F>> = [];
  #writing = false;
  /** Wakes `#next` when the open group's first file has waited long enough. */
  #timer: NodeJS.Timeout | null = null;

  readonly #staging: StagingArea;
  readonly #write: GroupWriter<F>;

  constructor(staging: StagingArea, write: GroupWriter<F>) {
    this.#staging = staging;
    this.#write = write;
  }

  /** Joins the open group (starting one if none is open, or if the open one is full). */
  join(): GroupMember<F> {
    if (this.#open && this.#open.members + this.#open.files.length >= GROUP_MAX_FILES) {
      this.#closed.push(this.#open);
      this.#open = null;
    }
    const group = (this.#open ??= { staged: this.#staging.begin(), members: 0, files: [], poisoned: false, firstAt: null });
    group.members += 1;
    let state: 'joined' | 'added' | 'gone' = 'joined';
    const leave = (poison: boolean) => {
      if (state === 'gone') return;
      state = 'gone';
      if (poison) group.poisoned = true;
      group.members -= 1;
      this.#next();
    };
    return {
      add: async (source) => {
        try {
          const stored = await group.staged.add(source);
          state = 'added';
          return stored;
        } catch (error) {
          // Some of its blocks may be staged already.
          leave(true);
          throw error;
        }
      },
      submit: (file) =>
        new Promise<boolean>((resolve, reject) => {
          if (state === 'gone') throw new Error('La captura ya dejó su grupo.');
          group.files.push({ file, resolve, reject });
          group.firstAt ??= performance.now();
          leave(false);
        }),
      // A file streamed in whole and then abandoned would be committed without its record.
      leave: () => leave(state === 'added'),
    };
  }

  /** Closes the open group when it is time, and writes a closed group whose members are done. */
  #next(): void {
    // A poisoned group takes no more members, writer free or not.
    if (this.#open?.poisoned && (this.#open.members > 0 || this.#open.files.length > 0)) {
      this.#closed.push(this.#open);
      this.#open = null;
    }
    if (this.#writing) return;
    const open = this.#open;
    if (open && open.files.length > 0) {
      const waited = performance.now() - open.firstAt!;
      if (open.poisoned || open.files.length >= GROUP_FILES || waited >= GROUP_WAIT_MS) {
        this.#closed.push(open);
        this.#open = null;
      } else if (!this.#timer) {
        this.#timer = setTimeout(() => {
          this.#timer = null;
          this.#next();
        }, GROUP_WAIT_MS - waited);
      }
    }
    // An open group every member of which failed holds nothing to write: thrown away.
    if (this.#open && this.#open.members === 0 && this.#open.files.length === 0) {
      const empty = this.#open;
      this.#open = null;
      void empty.staged.discard().catch((error: unknown) => console.error('No se pudo limpiar un grupo de capturas', error));
    }
    const index = this.#closed.findIndex((group) => group.members === 0);
    if (index < 0) return;
    const [group] = this.#closed.splice(index, 1);
    this.#writing = true;
    void this.#commit(group!).finally(() => {
      this.#writing = false;
      this.#next();
    });
  }

  async #commit(group: Group<F>): Promise<void> {
    if (group.poisoned) {
      await group.staged.discard().catch((error: unknown) => console.error('No se pudo limpiar un grupo de capturas', error));
      const reason = new HandBackJobError('otro archivo de su grupo falló; se volverá a capturar');
      for (const entry of group.files) entry.reject(reason);
      return;
    }
    try {
      const completed = await this.#write(
        group.staged,
        group.files.map((entry) => entry.file),
      );
      for (const entry of group.files) entry.resolve(entry.file.lease !== null && completed.has(entry.file.lease.id));
    } catch (error) {
      await group.staged.discard().catch((cause: unknown) => console.error('No se pudo limpiar un grupo de capturas', cause));
      for (const entry of group.files) entry.reject(error);
    }
  }
}

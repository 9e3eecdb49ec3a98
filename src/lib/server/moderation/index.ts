/**
 * Moderation (issue #8, DECISIONS 'Contribution'): the wallets in `ARCHIVE_MODERATORS` move a
 * record between its four statuses, and a source or institution between its review statuses, with a public
 * reason (required to block, mark broken or refuse). Every change is kept, with who made it and
 * when, and shown on the record's page. What moderators read (the queue, the history) is in
 * `queries/moderation.ts`.
 */
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import {
  ASSET_STATUS_VALUES,
  SOURCE_REVIEW_STATUS_VALUES,
  STATUSES_NEEDING_REASON,
  type AssetStatus,
  type SourceReviewStatus,
} from '../../domain/constants.ts';
import type { User } from '../../domain/user.ts';
import type { Db } from '../db/index.ts';
import { alexandrias, statusHistory } from '../db/schema.ts';
import { ForbiddenError, HttpError, UnauthorizedError, ValidationError } from '../http/errors.ts';
import { changeEntityReview } from './entities.ts';

/** Whether `user` may moderate: their wallet is one of `moderators` (lower-cased). */
export function isModerator(user: User | null, moderators: readonly string[]): boolean {
  return user !== null && moderators.includes(user.account.toLowerCase());
}

/** The signed-in moderator's wallet (as the middleware resolved it into `locals`), or the 401/403 that refuses everyone else. */
export function requireModerator(locals: Pick<App.Locals, 'user' | 'moderator'>): string {
  if (!locals.user) throw new UnauthorizedError('Inicie sesión con una cartera de moderación.');
  if (!locals.moderator) throw new ForbiddenError('Solo los moderadores del archivo pueden hacer esto.');
  return locals.user.account.toLowerCase();
}

const reasonField = z.string().trim().max(1000, 'El motivo no puede pasar de 1000 caracteres.').optional().default('');

function withReason<T extends string>(values: readonly [T, ...T[]]) {
  return z
    .object({ status: z.enum(values, { error: 'Elija un estado válido.' }), reason: reasonField })
    .refine((change) => !STATUSES_NEEDING_REASON.has(change.status) || change.reason.length > 0, {
      path: ['reason'],
      message: 'Indique el motivo: es obligatorio para bloquear, marcar como roto o rechazar.',
    });
}

export const recordStatusChange = withReason(ASSET_STATUS_VALUES);
export const sourceStatusChange = withReason(SOURCE_REVIEW_STATUS_VALUES);
/** An institution's review takes the same statuses and rules as a source's. */
export const departmentStatusChange = sourceStatusChange;

export interface StatusChange<S extends string> {
  id: number;
  status: S;
  reason: string;
  actor: string;
}

/** Moves a record to `status` and keeps the change in its history; one transaction. */
export async function changeRecordStatus(db: Db, change: StatusChange<AssetStatus>): Promise<{ id: number; status: AssetStatus }> {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ status: alexandrias.status })
      .from(alexandrias)
      .where(eq(alexandrias.id, change.id))
      .for('update');
    if (!current) throw new HttpError(404, 'Ese registro no existe.');
    if (current.status === change.status) throw new ValidationError('El registro ya tiene ese estado.');
    await tx.update(alexandrias).set({ status: change.status }).where(eq(alexandrias.id, change.id));
    await tx.insert(statusHistory).values({
      alexandriaId: change.id,
      fromStatus: current.status,
      toStatus: change.status,
      reason: change.reason || null,
      actor: change.actor,
    });
    return { id: change.id, status: change.status };
  });
}

/** Moves a source to a review status and keeps the decision (institutions alike: `entities.ts`). */
export function changeSourceStatus(db: Db, change: StatusChange<SourceReviewStatus>): Promise<{ id: number; status: SourceReviewStatus }> {
  return changeEntityReview(db, 'src', change);
}

/** Moves an institution (department) to a review status and keeps the decision. */
export function changeDepartmentStatus(db: Db, change: StatusChange<SourceReviewStatus>): Promise<{ id: number; status: SourceReviewStatus }> {
  return changeEntityReview(db, 'dep', change);
}

/**
 * Review of the sources and institutions contributors create (DECISIONS 'Contribution', issue
 * #16): they start `under_review`, hidden from every public read (`queries/visibility.ts`), until a
 * moderator accepts (`on_line`) or refuses them. Both kinds are reviewed the same way, with a public
 * reason to refuse, and every decision is kept with who made it and when.
 */
import { eq } from 'drizzle-orm';
import type { SourceReviewStatus } from '../../domain/constants.ts';
import type { Db } from '../db/index.ts';
import { departmentReviews, sourceReviews } from '../db/schema.ts';
import { HttpError, ValidationError } from '../http/errors.ts';
import { DIMENSIONS } from '../queries/dimensions.ts';
import type { ReviewedEntity } from '../queries/moderation.ts';

export interface ReviewChange {
  id: number;
  status: SourceReviewStatus;
  reason: string;
  actor: string;
}

const MESSAGES = {
  src: { missing: 'Esa fuente no existe.', same: 'La fuente ya tiene ese estado.' },
  dep: { missing: 'Esa institución no existe.', same: 'La institución ya tiene ese estado.' },
} as const;

/** Moves a source or institution to a review status and keeps the decision; one transaction. */
export async function changeEntityReview(
  db: Db,
  entity: ReviewedEntity,
  change: ReviewChange,
): Promise<{ id: number; status: SourceReviewStatus }> {
  return db.transaction(async (tx) => {
    const { table } = DIMENSIONS[entity];
    const [current] = await tx.select({ status: table.reviewStatus }).from(table).where(eq(table.id, change.id)).for('update');
    if (!current) throw new HttpError(404, MESSAGES[entity].missing);
    if (current.status === change.status) throw new ValidationError(MESSAGES[entity].same);
    // A new updated_at too: the catalogue's and the exports' fingerprints see the change.
    await tx.update(table).set({ reviewStatus: change.status, updatedAt: new Date() }).where(eq(table.id, change.id));
    const decision = { fromStatus: current.status, toStatus: change.status, reason: change.reason || null, actor: change.actor };
    if (entity === 'src') await tx.insert(sourceReviews).values({ sourceId: change.id, ...decision });
    else await tx.insert(departmentReviews).values({ departmentId: change.id, ...decision });
    return { id: change.id, status: change.status };
  });
}

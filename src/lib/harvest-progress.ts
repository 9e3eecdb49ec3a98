/**
 * Where a harvest source's work stands, in one Spanish sentence: the moderators' page renders it
 * on the server and its script rewrites it from `GET /v2/ops/harvest-sources/{id}` every 2 s while
 * a run or its captures are under way, so both read the same words. Plain data in, no server code.
 *
 * The capture counts are the source's, not the last run's: a run of a source whose earlier files
 * are in reads «40 de 80» before it has captured one. So the sentence leads with what is left,
 * the number that moves, and says the rest is the source's; and once the work is over, it names
 * the captures still failing now, not those a retry has mended since the run ended.
 */

import { pickPlural } from './i18n/plural.ts';
import { formatCount } from './text.ts';

export interface HarvestProgressInput {
  activeRun: { status: 'queued' | 'running' } | null;
  lastRun: { status: 'in_progress' | 'done' | 'failed'; documents: number; counts: { failed: number } } | null;
  captures: { counts: { queued: number; running: number; done: number; failed: number } };
}

export type HarvestPhase = 'idle' | 'queued' | 'harvesting' | 'capturing' | 'done' | 'failed';

/** Whether the page should keep asking: a run queued or running, or captures still to do. */
export function isUnderWay(progress: HarvestProgressInput): boolean {
  const phase = harvestPhase(progress);
  return phase === 'queued' || phase === 'harvesting' || phase === 'capturing';
}

export function harvestPhase({ activeRun, lastRun, captures }: HarvestProgressInput): HarvestPhase {
  if (lastRun?.status === 'in_progress') return 'harvesting';
  if (activeRun) return activeRun.status === 'running' ? 'harvesting' : 'queued';
  if (captures.counts.queued + captures.counts.running > 0) return 'capturing';
  if (!lastRun) return 'idle';
  return lastRun.status === 'failed' ? 'failed' : 'done';
}

/** A source's records as its row in the list says them («1 registro», «1,065 registros»). */
export const recordsLabel = (count: number) => pickPlural(count, { one: '1 registro', other: `${formatCount(count)} registros` });

const documents = (count: number) => pickPlural(count, { one: '1 documento', other: `${formatCount(count)} documentos` });

/** The sentence for where the source stands. */
export function harvestProgressText(progress: HarvestProgressInput): string {
  const { lastRun, captures } = progress;
  const { queued, running, done, failed } = captures.counts;
  switch (harvestPhase(progress)) {
    case 'idle':
      return 'Todavía no se ha cosechado.';
    case 'queued':
      return 'Cosecha en cola: empieza en unos segundos.';
    case 'harvesting':
      if (lastRun?.status !== 'in_progress') return 'Cosechando: leyendo el catálogo…';
      return `Cosechando: ${documents(lastRun.documents)} ${pickPlural(lastRun.documents, { one: 'leído', other: 'leídos' })} hasta ahora…`;
    case 'capturing':
      return `Catálogo leído. Capturando archivos: ${pickPlural(queued + running, { one: 'queda 1', other: `quedan ${formatCount(queued + running)}` })} por capturar; la fuente tiene ${formatCount(done)} de ${formatCount(queued + running + done + failed)} capturados…`;
    case 'failed':
      return `La última cosecha falló tras ${documents(lastRun!.documents)}: su motivo está abajo, bajo «Cosechas».`;
    case 'done':
      return failed > 0
        ? `Última cosecha terminada: ${documents(lastRun!.documents)}. ${pickPlural(failed, {
            one: '1 captura sigue fallando: aparece abajo, donde puede reintentarla.',
            other: `${formatCount(failed)} capturas siguen fallando: aparecen abajo, donde puede reintentarlas.`,
          })}`
        : `Última cosecha terminada: ${documents(lastRun!.documents)}.`;
  }
}

/** Under «Cosechas», while a run has no row yet (`first`: the source has none at all). */
export function runPendingText(first: boolean): string {
  return first
    ? 'La primera cosecha de esta fuente está en cola o en curso; aparecerá aquí cuando termine (el recuadro de arriba muestra su avance).'
    : 'La cosecha en cola o en curso aparecerá aquí cuando termine (el recuadro de arriba muestra su avance).';
}

export interface RunBadge {
  label: string;
  colour: 'amber' | 'emerald' | 'rose';
}

/** A run's status as a badge: the runs table's, and the source's once its work is over. */
export const RUN_BADGES: Readonly<Record<'in_progress' | 'done' | 'failed', RunBadge>> = {
  in_progress: { label: 'En curso', colour: 'amber' },
  done: { label: 'Terminada', colour: 'emerald' },
  failed: { label: 'Falló', colour: 'rose' },
};

/**
 * The source's badge in the list: where its work stands, not only its last run's status. A run
 * that has read its catalogue is done while its files are still being captured, and «Terminada»
 * then read as if nothing were left to do. Null before the first run.
 */
export function harvestBadge(progress: HarvestProgressInput): RunBadge | null {
  switch (harvestPhase(progress)) {
    case 'idle':
      return null;
    case 'queued':
      return { label: 'En cola', colour: 'amber' };
    case 'harvesting':
      return RUN_BADGES.in_progress;
    case 'capturing':
      return { label: 'Capturando archivos', colour: 'amber' };
    case 'failed':
      return RUN_BADGES.failed;
    case 'done':
      return RUN_BADGES.done;
  }
}

/** The source's «Cosechar ahora» button while a run of it is queued or running, and when it is not. */
export function runButtonLabel(activeRun: HarvestProgressInput['activeRun']): string {
  if (!activeRun) return 'Cosechar ahora';
  return activeRun.status === 'running' ? 'Cosechando…' : 'En cola…';
}

/**
 * What the failed captures' list says while the work goes on and some have failed since the page
 * was drawn: the list itself, with each reason, is drawn again when the work ends.
 */
export function failedSoFarText(count: number): string {
  return pickPlural(count, {
    one: '1 captura ha fallado hasta ahora: aparecerá aquí, con su motivo, cuando termine el trabajo.',
    other: `${formatCount(count)} capturas han fallado hasta ahora: aparecerán aquí, con su motivo, cuando termine el trabajo.`,
  });
}

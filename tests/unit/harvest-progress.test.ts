/**
 * Where a harvest source stands, as the moderators' page says it and its script rewrites it while
 * the work goes on: the sentence, and the «Cosechar ahora» button, which said «En cola…» through
 * a whole run once the click had queued it.
 */
import { describe, expect, it } from 'vitest';
import { failedSoFarText, harvestBadge, harvestPhase, harvestProgressText, runButtonLabel, type HarvestProgressInput } from '../../src/lib/harvest-progress.ts';

const noCaptures = { counts: { queued: 0, running: 0, done: 0, failed: 0 } };
const state = (over: Partial<HarvestProgressInput>): HarvestProgressInput => ({ activeRun: null, lastRun: null, captures: noCaptures, ...over });

describe('harvest progress', () => {
  it('follows a run from the queue to its captures and its end', () => {
    expect(harvestPhase(state({ activeRun: { status: 'queued' } }))).toBe('queued');
    expect(harvestPhase(state({ activeRun: { status: 'running' } }))).toBe('harvesting');
    const reading = state({ activeRun: { status: 'running' }, lastRun: { status: 'in_progress', documents: 1200, counts: { failed: 0 } } });
    expect(harvestProgressText(reading)).toBe('Cosechando: 1,200 documentos leídos hasta ahora…');
    // One document is singular, participle and all.
    expect(harvestProgressText({ ...reading, lastRun: { status: 'in_progress', documents: 1, counts: { failed: 0 } } })).toBe('Cosechando: 1 documento leído hasta ahora…');
    const capturing = state({ lastRun: { status: 'done', documents: 22, counts: { failed: 0 } }, captures: { counts: { queued: 5, running: 2, done: 14, failed: 1 } } });
    expect(harvestProgressText(capturing)).toBe('Catálogo leído. Capturando archivos: quedan 7 por capturar; la fuente tiene 14 de 22 capturados…');
    const lastOne = state({ lastRun: { status: 'done', documents: 22, counts: { failed: 0 } }, captures: { counts: { queued: 0, running: 1, done: 21, failed: 0 } } });
    expect(harvestProgressText(lastOne)).toBe('Catálogo leído. Capturando archivos: queda 1 por capturar; la fuente tiene 21 de 22 capturados…');
    // A later run of the same source: what is left is this run's, whatever the source had before.
    const again = state({ lastRun: { status: 'done', documents: 80, counts: { failed: 0 } }, captures: { counts: { queued: 40, running: 0, done: 40, failed: 0 } } });
    expect(harvestProgressText(again)).toBe('Catálogo leído. Capturando archivos: quedan 40 por capturar; la fuente tiene 40 de 80 capturados…');
    // Over: the captures failing now, not the run's count, which a retry that mended one leaves as it was.
    const over = { status: 'done' as const, documents: 6, counts: { failed: 1 } };
    expect(harvestProgressText(state({ lastRun: over, captures: { counts: { queued: 0, running: 0, done: 6, failed: 1 } } }))).toBe(
      'Última cosecha terminada: 6 documentos. 1 captura sigue fallando: aparece abajo, donde puede reintentarla.',
    );
    expect(harvestProgressText(state({ lastRun: over, captures: { counts: { queued: 0, running: 0, done: 4, failed: 2 } } }))).toBe(
      'Última cosecha terminada: 6 documentos. 2 capturas siguen fallando: aparecen abajo, donde puede reintentarlas.',
    );
    expect(harvestProgressText(state({ lastRun: over, captures: { counts: { queued: 0, running: 0, done: 7, failed: 0 } } }))).toBe('Última cosecha terminada: 6 documentos.');
    expect(harvestProgressText(state({ lastRun: { status: 'failed', documents: 0, counts: { failed: 0 } } }))).toBe(
      'La última cosecha falló tras 0 documentos: su motivo está abajo, bajo «Cosechas».',
    );
  });

  it('badges a source by where its work stands: a run done while its files are captured is not «Terminada»', () => {
    const done = { status: 'done' as const, documents: 22, counts: { failed: 0 } };
    expect(harvestBadge(state({}))).toBeNull();
    expect(harvestBadge(state({ lastRun: done, activeRun: { status: 'queued' } }))).toEqual({ label: 'En cola', colour: 'amber' });
    expect(harvestBadge(state({ activeRun: { status: 'running' } }))).toEqual({ label: 'En curso', colour: 'amber' });
    expect(harvestBadge(state({ lastRun: done, captures: { counts: { queued: 20, running: 2, done: 0, failed: 0 } } }))).toEqual({ label: 'Capturando archivos', colour: 'amber' });
    expect(harvestBadge(state({ lastRun: done, captures: { counts: { queued: 0, running: 0, done: 20, failed: 2 } } }))).toEqual({ label: 'Terminada', colour: 'emerald' });
    expect(harvestBadge(state({ lastRun: { ...done, status: 'failed' } }))).toEqual({ label: 'Falló', colour: 'rose' });
  });

  it('names the button by what the run is doing', () => {
    expect(runButtonLabel(null)).toBe('Cosechar ahora');
    expect(runButtonLabel({ status: 'queued' })).toBe('En cola…');
    expect(runButtonLabel({ status: 'running' })).toBe('Cosechando…');
  });

  it('says how many captures failed so far, while their list waits for the end of the work', () => {
    expect(failedSoFarText(1)).toBe('1 captura ha fallado hasta ahora: aparecerá aquí, con su motivo, cuando termine el trabajo.');
    expect(failedSoFarText(1065)).toBe('1,065 capturas han fallado hasta ahora: aparecerán aquí, con su motivo, cuando termine el trabajo.');
  });
});

/**
 * Server time per route, measured from outside: sequential requests over one kept-alive
 * connection, each timed to the last byte of its body. Then the same routes mixed, first one at a
 * time and then several at once, to show what one embedded database connection does under load.
 */
import { gzipSync } from 'node:zlib';
import type { BenchRoute } from './routes.ts';
import { kb, ms, summarise, table, type Timing } from './stats.ts';

export type RouteOutcome = 'ok' | 'not-built' | 'error';

export interface RouteFigure {
  key: string;
  label: string;
  path: string;
  kind: BenchRoute['kind'];
  outcome: RouteOutcome;
  status: number;
  /** Why the route was not measured, when it was not. */
  note?: string;
  timing?: Timing;
  bodyBytes?: number;
  bodyGzipBytes?: number;
  medianBudgetMs?: number;
  over?: boolean;
}

export interface LoadFigure {
  /** Which routes were mixed: all those that answer, or the collection pages alone. */
  label: string;
  concurrency: number;
  requests: number;
  requestsPerSecond: number;
  timing: Timing;
}

export interface HttpFigures {
  /** The first request: the server opens and migrates its database then. */
  coldStartMs: number;
  routes: RouteFigure[];
  load: LoadFigure[];
}

interface Answer {
  status: number;
  body: Uint8Array;
}

async function call(origin: string, route: BenchRoute): Promise<Answer> {
  const response = route.graphql
    ? await fetch(origin + route.path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query: route.graphql }),
      })
    : await fetch(origin + route.path);
  return { status: response.status, body: new Uint8Array(await response.arrayBuffer()) };
}

/** Why the first answer cannot be measured, or null when it can. */
function problemWith(route: BenchRoute, answer: Answer): { outcome: RouteOutcome; note: string } | null {
  if (answer.status === 404) return { outcome: 'not-built', note: '404 (not built yet)' };
  if (answer.status !== 200) return { outcome: 'error', note: `HTTP ${answer.status}` };
  if (route.graphql) {
    try {
      const json = JSON.parse(new TextDecoder().decode(answer.body)) as { errors?: Array<{ message?: string }> };
      if (json.errors?.length) return { outcome: 'error', note: `GraphQL: ${json.errors[0]?.message ?? 'error'}`.slice(0, 100) };
    } catch {
      return { outcome: 'error', note: 'GraphQL: la respuesta no es JSON' };
    }
  }
  return null;
}

async function timeRoute(origin: string, route: BenchRoute, runs: number, warmups: number, maxMs: number): Promise<RouteFigure> {
  const base = { key: route.key, label: route.label, path: route.path, kind: route.kind, ...(route.medianBudgetMs ? { medianBudgetMs: route.medianBudgetMs } : {}) };
  let first: Answer;
  try {
    first = await call(origin, route);
  } catch (error) {
    return { ...base, outcome: 'error', status: 0, note: `sin respuesta: ${(error as Error).message}` };
  }
  const problem = problemWith(route, first);
  if (problem) return { ...base, ...problem, status: first.status };

  // A slow route gets fewer runs rather than stretching the whole benchmark (its n shows it).
  const warming = performance.now();
  for (let i = 1; i < warmups && performance.now() - warming < 2000; i += 1) await call(origin, route);
  const samples: number[] = [];
  let failures = 0;
  const measuring = performance.now();
  for (let i = 0; i < runs; i += 1) {
    if (i >= 20 && performance.now() - measuring > maxMs) break;
    const started = performance.now();
    const answer = await call(origin, route);
    samples.push(performance.now() - started);
    if (answer.status !== 200) failures += 1;
  }
  const timing = summarise(samples);
  return {
    ...base,
    outcome: failures ? 'error' : 'ok',
    status: first.status,
    ...(failures ? { note: `${failures} respuestas distintas de 200` } : {}),
    timing,
    bodyBytes: first.body.byteLength,
    bodyGzipBytes: gzipSync(first.body, { level: 9 }).byteLength,
    ...(route.medianBudgetMs ? { over: timing.median > route.medianBudgetMs } : {}),
  };
}

/** `requests` calls spread over the routes, `concurrency` in flight at a time. */
async function mixedLoad(label: string, origin: string, routes: BenchRoute[], requests: number, concurrency: number, maxMs: number): Promise<LoadFigure> {
  const samples: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests && performance.now() - started < maxMs) {
        const route = routes[next % routes.length]!;
        next += 1;
        const begun = performance.now();
        await call(origin, route);
        samples.push(performance.now() - begun);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { label, concurrency, requests: samples.length, requestsPerSecond: samples.length / seconds, timing: summarise(samples) };
}

export function printHttp(figures: HttpFigures): void {
  console.log(`\nTiempo de servidor (HTTP, secuencial; primera petición con apertura de la base: ${ms(figures.coldStartMs)} ms)`);
  console.log(
    table([
      ['ruta', 'mediana ms', 'p95 ms', 'n', 'objetivo', '', 'HTML/JSON KB gz'],
      ...figures.routes.map((r) =>
        r.timing
          ? [r.label, ms(r.timing.median), ms(r.timing.p95), String(r.timing.runs), r.medianBudgetMs ? `< ${r.medianBudgetMs}` : '', r.over ? 'OVER' : r.medianBudgetMs ? 'ok' : '', r.bodyGzipBytes ? kb(r.bodyGzipBytes) : '']
          : [r.label, r.note ?? r.outcome, '', '', r.medianBudgetMs ? `< ${r.medianBudgetMs}` : '', '', ''],
      ),
    ]),
  );
  if (figures.load.length) {
    console.log('\nCarga: secuencial frente a concurrente');
    console.log(
      table([
        ['rutas', 'a la vez', 'peticiones', 'req/s', 'mediana ms', 'p95 ms'],
        ...figures.load.map((l) => [l.label, String(l.concurrency), String(l.requests), l.requestsPerSecond.toFixed(1), ms(l.timing.median), ms(l.timing.p95)]),
      ]),
    );
  }
}

export interface HttpOptions {
  runs: number;
  warmups: number;
  concurrency: number;
  /** Measuring time per route (and per load phase) after which a slow one stops early. */
  maxSecondsPerRoute: number;
}

export async function benchHttp(origin: string, routes: BenchRoute[], { runs, warmups, concurrency, maxSecondsPerRoute }: HttpOptions): Promise<HttpFigures> {
  const started = performance.now();
  await (await fetch(`${origin}/dashboard`)).arrayBuffer();
  const coldStartMs = performance.now() - started;

  const figures: RouteFigure[] = [];
  for (const route of routes) {
    const figure = await timeRoute(origin, route, runs, warmups, maxSecondsPerRoute * 1000);
    figures.push(figure);
    const shown = figure.timing ? `mediana ${ms(figure.timing.median)} ms, p95 ${ms(figure.timing.p95)} ms` : figure.note;
    console.log(`  ${route.label}: ${shown}`);
  }

  const answering = routes.filter((route) => figures.find((f) => f.key === route.key)?.outcome === 'ok');
  const load: LoadFigure[] = [];
  if (answering.length && concurrency > 1) {
    load.push(await mixedLoad('todas', origin, answering, runs, 1, maxSecondsPerRoute * 1000));
    load.push(await mixedLoad('todas', origin, answering, runs, concurrency, maxSecondsPerRoute * 1000));
    // The collection pages alone (issue #10: their throughput under concurrent load).
    const collections = answering.filter((route) => route.key.startsWith('collection'));
    if (collections.length) load.push(await mixedLoad('colecciones', origin, collections, runs * 2, concurrency, maxSecondsPerRoute * 1000));
  }
  return { coldStartMs, routes: figures, load };
}

/**
 * Draws the catalogue's charts with chart.js, in the browser only. Just the controllers and
 * elements used are registered, so the bundle stays small; it is loaded when a chart scrolls into
 * view (see FormatChart.astro), never on pages without charts.
 */
import {
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  DoughnutController,
  Legend,
  LinearScale,
  Tooltip,
} from 'chart.js';

import { prefersReducedMotion } from '../../lib/motion.ts';

Chart.register(ArcElement, BarController, BarElement, CategoryScale, DoughnutController, Legend, LinearScale, Tooltip);

export interface ChartSpec {
  kind: 'doughnut' | 'bar';
  labels: string[];
  values: number[];
  colours: string[];
  /** Dataset label, e.g. 'N archivos' on the category bars. */
  label: string;
}

export function drawChart(canvas: HTMLCanvasElement, spec: ChartSpec): Chart {
  // Drawn at once, not grown, for a reader who asked for less motion.
  const animation = prefersReducedMotion() ? (false as const) : undefined;
  const dataset = { label: spec.label, data: spec.values, backgroundColor: spec.colours, borderWidth: 0 };
  if (spec.kind === 'doughnut') {
    return new Chart(canvas, {
      type: 'doughnut',
      data: { labels: spec.labels, datasets: [dataset] },
      // SPEC §9: doughnut cutout 75 %.
      options: { animation, cutout: '75%', maintainAspectRatio: false, plugins: { legend: { display: false } } },
    });
  }
  return new Chart(canvas, {
    type: 'bar',
    data: { labels: spec.labels, datasets: [{ ...dataset, borderRadius: 4 }] },
    options: {
      animation,
      maintainAspectRatio: false,
      plugins: { legend: { display: false } },
      scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
    },
  });
}

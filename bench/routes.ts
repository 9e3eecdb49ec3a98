/**
 * What the benchmark requests, with the targets of issues 3 and 4 beside each: server rendering
 * of collection and record pages under 50 ms (median), REST lists and the dashboard's GraphQL
 * counts under 20 ms, and at most 30 KB (collection, record) or 120 KB (dashboard) of gzipped
 * JavaScript for an anonymous visitor. Routes that answer 404 are reported as not built yet.
 */
import type { BenchTargets } from './large-db.ts';

export interface BenchRoute {
  /** Stable key for the results file. */
  key: string;
  label: string;
  path: string;
  kind: 'page' | 'api';
  /** A GraphQL query POSTed as JSON; the route is a GET without it. */
  graphql?: string;
  /** Target for the median server time, in ms. */
  medianBudgetMs?: number;
  /** Target for the gzipped JavaScript of the page, in KB; pages with one are weighed in Chromium. */
  jsBudgetKb?: number | null;
}

/** The dashboard's counts as SPEC §7 reads them (Strapi v3 connections grouped by a field); the ranking counts published records. */
const DASHBOARD_COUNTS = `{
  byType: alexandriasConnection { groupBy { type { key connection { aggregate { count } } } } }
  unprocessed: alexandriasConnection(where: { status: "under_review" }) { groupBy { type { key connection { aggregate { count } } } } }
  ranking: alexandriasConnection(where: { status: "on_line" }) { groupBy { wallet_address { key connection { aggregate { count } } } } }
  categoriesConnection { groupBy { id { key connection { aggregate { count totalCount } } } } }
}`;

export function benchRoutes(t: BenchTargets): BenchRoute[] {
  const dep = t.department;
  const depPages = Math.ceil(dep.records / 10);
  const portalPages = Math.ceil(t.portal.records / 10);
  const deepPage = Math.min(50, depPages);
  const record = t.seededRecord;
  const wallet = encodeURIComponent(t.wallet.address);
  const routes: BenchRoute[] = [
    { key: 'dashboard', label: 'panel /dashboard', path: '/dashboard', kind: 'page', jsBudgetKb: 120 },
    { key: 'group-dep', label: 'grupo /group/dep', path: '/group/dep', kind: 'page', jsBudgetKb: null },
    { key: 'collection-dep', label: `colección dep ${dep.id} (${dep.records} reg.)`, path: `/collection/dep/${dep.id}`, kind: 'page', medianBudgetMs: 50, jsBudgetKb: 30 },
    { key: 'collection-dep-deep', label: `colección dep ${dep.id}, página ${deepPage}`, path: `/collection/dep/${dep.id}?page=${deepPage}`, kind: 'page', medianBudgetMs: 50 },
    { key: 'collection-cat', label: `colección cat ${t.category.id} (${t.category.records} reg.)`, path: `/collection/cat/${t.category.id}`, kind: 'page', medianBudgetMs: 50, jsBudgetKb: 30 },
    { key: 'collection-src', label: `colección src ${t.portal.id} (portal, ${t.portal.records} reg.)`, path: `/collection/src/${t.portal.id}`, kind: 'page', medianBudgetMs: 50 },
    { key: 'collection-src-last', label: `colección src ${t.portal.id}, última página (${portalPages})`, path: `/collection/src/${t.portal.id}?page=${portalPages}`, kind: 'page', medianBudgetMs: 50 },
    { key: 'record', label: `registro /single/src/{cid} (${record.type})`, path: `/single/src/${record.cid}?assetId=${record.id}`, kind: 'page', medianBudgetMs: 50, jsBudgetKb: 30 },
    { key: 'rest-alexandrias-title', label: 'REST alexandrias ?title=', path: '/v2/open-data/alexandrias/getAll?title=salario&limit=5', kind: 'api', medianBudgetMs: 20 },
    { key: 'rest-alexandrias-wallet', label: 'REST alexandrias ?wallet_address=', path: `/v2/open-data/alexandrias/getAll?wallet_address=${wallet}&limit=5&sort=createdAt:-1`, kind: 'api', medianBudgetMs: 20 },
    { key: 'rest-departments', label: 'REST departments ?name=', path: '/v2/open-data/departments/getAll?name=educacion&limit=5', kind: 'api', medianBudgetMs: 20 },
    { key: 'rest-sources', label: 'REST sources ?name=', path: '/v2/open-data/sources/getAll?name=portal', kind: 'api', medianBudgetMs: 20 },
    { key: 'rest-categories', label: 'REST categories', path: '/v2/open-data/categories/getAll', kind: 'api', medianBudgetMs: 20 },
    { key: 'rest-v1-departments', label: 'REST v1 departments ?limit=', path: '/v1/api/departments/getAll?limit=5', kind: 'api', medianBudgetMs: 20 },
    { key: 'rest-admin-alexandrias', label: 'REST /alexandrias (admin)', path: `/alexandrias?wallet_address=${wallet}&_limit=3&_sort=createdAt:desc`, kind: 'api', medianBudgetMs: 20 },
    { key: 'rest-filecoin', label: 'REST filecoin/{cid}', path: `/v1/services/filecoin/${record.cid}`, kind: 'api', medianBudgetMs: 20 },
    { key: 'graphql-dashboard', label: 'GraphQL cuentas del panel', path: '/graphql', kind: 'api', graphql: DASHBOARD_COUNTS, medianBudgetMs: 20 },
  ];
  return routes.filter((route) => route.key !== 'collection-dep-deep' || depPages > 1);
}

/** Ministries as a list and categories as chips, each with its record count, linking to the collection. */
import type { FoundGroup } from '../../lib/api/search.ts';
import { collectionPath } from '../../lib/paths.ts';
import { recordCount } from './match.ts';

type Files = { one: string; other: string };

export function DepartmentList({ departments, files }: { departments: FoundGroup[]; files: Files }) {
  return (
    <ul className="mt-2 divide-y divide-slate-100 overflow-hidden rounded-xl border border-slate-200 bg-white">
      {departments.map((department) => (
        <li key={department.id}>
          <a href={collectionPath('dep', department.id)} className="flex items-baseline justify-between gap-3 px-3 py-2.5 hover:bg-indigo-50">
            <span className="min-w-0 font-medium text-slate-900">{department.name}</span>
            <span className="shrink-0 text-xs text-slate-500">{recordCount(department.records, files)}</span>
          </a>
        </li>
      ))}
    </ul>
  );
}

export function CategoryChips({ categories, files }: { categories: FoundGroup[]; files: Files }) {
  return (
    <ul className="mt-2 flex flex-wrap gap-2">
      {categories.map((category) => (
        <li key={category.id}>
          <a
            href={collectionPath('cat', category.id)}
            className="inline-flex items-center gap-1.5 rounded-full border border-slate-300 bg-white px-3 py-1.5 text-sm text-slate-800 hover:border-indigo-600 hover:text-indigo-700"
          >
            {category.name}
            <span className="text-xs text-slate-500">
              <span aria-hidden="true">{category.records}</span>
              <span className="sr-only">{recordCount(category.records, files)}</span>
            </span>
          </a>
        </li>
      ))}
    </ul>
  );
}

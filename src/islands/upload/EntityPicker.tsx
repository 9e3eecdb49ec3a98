/**
 * Steps 3 and 4 (SPEC §2, §4, §8): search an existing source or issuer (on Enter, at most 4
 * shown) or 'Crear nuevo' to enter a new one. Toggling between the two, or typing a new search,
 * clears the id and info picked before.
 */
import { useId, useState, type KeyboardEvent } from 'react';
import { searchEntities, type EntityOption } from '../../lib/api/upload.ts';
import { isSpecEnglish, URL_NOT_VALID, type NewEntity } from '../../lib/domain/upload.ts';
import { langOf } from '../../lib/i18n/english.ts';
import type { UploadLabels } from './labels.ts';

/** SPEC §9: the wizard's source/issuer search shows at most 4. */
const MAX_SHOWN = 4;

export interface EntityChoice {
  picked: EntityOption | undefined;
  creating: boolean;
  fresh: NewEntity;
}

interface Props {
  kind: 'sources' | 'departments';
  legend: string;
  value: EntityChoice;
  onChange(value: EntityChoice): void;
  /** Messages under the picker and under the new-entity form. */
  errors: { picked?: string; fresh?: string };
  labels: UploadLabels;
}

type Search = { state: 'idle' } | { state: 'loading' } | { state: 'done'; results: EntityOption[] };

const input =
  'mt-1 w-full rounded-lg border border-slate-300 px-3 py-2 text-sm focus:border-indigo-600 aria-[invalid=true]:border-rose-500';

export default function EntityPicker({ kind, legend, value, onChange, errors, labels }: Props) {
  const id = useId();
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState<Search>({ state: 'idle' });

  const clearPick = { picked: undefined, fresh: value.fresh };

  async function runSearch() {
    const text = query.trim();
    if (!text) return;
    setSearch({ state: 'loading' });
    try {
      const results = await searchEntities(kind, text);
      setSearch({ state: 'done', results: results.slice(0, MAX_SHOWN) });
    } catch (error) {
      // SPEC §8: search failures are only logged.
      console.error(error);
      setSearch({ state: 'idle' });
    }
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    void runSearch();
  }

  const toggle = () => {
    setQuery('');
    setSearch({ state: 'idle' });
    onChange({ ...clearPick, creating: !value.creating });
  };

  const setFresh = (field: keyof NewEntity, text: string) =>
    onChange({ ...value, picked: undefined, fresh: { ...value.fresh, [field]: text } });
  /** The fields the new entity's error is about: its website when that is what is wrong, else those left empty. */
  const freshInvalid = (field: keyof NewEntity) =>
    Boolean(errors.fresh) && (errors.fresh === URL_NOT_VALID ? field === 'url' : value.fresh[field].trim() === '');

  return (
    <fieldset className="space-y-3">
      <legend className="text-sm font-medium text-slate-700">{legend}</legend>
      {value.creating ? (
        <div className="space-y-3 rounded-lg border border-slate-200 p-4">
          {(['name', 'description', 'url'] as const).map((field) => (
            <div key={field}>
              <label htmlFor={`${id}-${field}`} className="block text-sm text-slate-700">{labels[`upload.entity.${field}`]}</label>
              {field === 'description' ? (
                <textarea
                  id={`${id}-${field}`}
                  rows={2}
                  value={value.fresh[field]}
                  onChange={(event) => setFresh(field, event.target.value)}
                  aria-invalid={freshInvalid(field) ? true : undefined}
                  aria-describedby={freshInvalid(field) ? `${id}-fresh-error` : undefined}
                  className={input}
                />
              ) : (
                <input
                  id={`${id}-${field}`}
                  type={field === 'url' ? 'url' : 'text'}
                  inputMode={field === 'url' ? 'url' : undefined}
                  placeholder={field === 'url' ? 'https://' : undefined}
                  value={value.fresh[field]}
                  onChange={(event) => setFresh(field, event.target.value)}
                  aria-invalid={freshInvalid(field) ? true : undefined}
                  aria-describedby={freshInvalid(field) ? `${id}-fresh-error` : undefined}
                  className={input}
                />
              )}
            </div>
          ))}
          {errors.fresh && <p id={`${id}-fresh-error`} className="text-sm text-rose-700" role="alert" lang={isSpecEnglish(errors.fresh) ? 'en' : undefined}>{errors.fresh}</p>}
        </div>
      ) : (
        <div>
          <label htmlFor={`${id}-search`} className="sr-only">{labels['upload.entity.search']}</label>
          <input
            id={`${id}-search`}
            type="search"
            enterKeyHint="search"
            value={query}
            placeholder={labels['upload.entity.search']}
            onChange={(event) => {
              setQuery(event.target.value);
              if (value.picked) onChange({ ...value, ...clearPick });
            }}
            onKeyDown={onKeyDown}
            aria-describedby={errors.picked ? `${id}-hint ${id}-picked-error` : `${id}-hint`}
            aria-invalid={errors.picked ? true : undefined}
            className={input}
          />
          <p id={`${id}-hint`} className="mt-1 text-xs text-slate-500">{labels['upload.entity.searchHint']}</p>
          {search.state === 'loading' && <p className="mt-2 text-sm text-slate-500" role="status" lang={langOf('upload.loading')}>{labels['upload.loading']}</p>}
          {search.state === 'done' && search.results.length === 0 && (
            <div className="mt-2 rounded-lg bg-amber-50 p-3 text-sm text-amber-900" role="status">
              <p className="font-semibold" lang={langOf('upload.entity.noResult')}>{labels['upload.entity.noResult']}</p>
              <p>
                {labels['upload.entity.noResultBody']}{' '}
                <button type="button" onClick={toggle} className="font-semibold text-indigo-700 underline">
                  {labels['upload.entity.noResultLink']}
                </button>
                .
              </p>
            </div>
          )}
          {search.state === 'done' && search.results.length > 0 && (
            <ul className="mt-2 space-y-2" aria-label={legend}>
              {search.results.map((option) => {
                const selected = value.picked?.id === option.id;
                return (
                  <li key={option.id}>
                    <label
                      className={`flex cursor-pointer gap-3 rounded-lg border p-3 text-sm ${selected ? 'border-indigo-600 bg-indigo-50' : 'border-slate-200 hover:border-slate-300'}`}
                    >
                      <input
                        type="radio"
                        name={`${id}-option`}
                        checked={selected}
                        onChange={() => onChange({ ...value, picked: option })}
                        className="mt-1"
                      />
                      <span>
                        <span className="block font-medium text-slate-900">{option.name}</span>
                        {option.url && <span className="block break-all text-xs text-slate-500">{option.url}</span>}
                      </span>
                    </label>
                  </li>
                );
              })}
            </ul>
          )}
          {value.picked && search.state !== 'done' && (
            <p className="mt-2 rounded-lg border border-indigo-600 bg-indigo-50 p-3 text-sm">
              <span className="text-xs uppercase text-indigo-700">{labels['upload.entity.selected']}: </span>
              {value.picked.name}
            </p>
          )}
          {errors.picked && <p id={`${id}-picked-error`} className="mt-1 text-sm text-rose-700" role="alert" lang={isSpecEnglish(errors.picked) ? 'en' : undefined}>{errors.picked}</p>}
        </div>
      )}
      <button type="button" onClick={toggle} className="text-sm font-semibold text-indigo-700 hover:underline">
        {value.creating ? labels['upload.entity.searchExisting'] : labels['upload.entity.createNew']}
      </button>
    </fieldset>
  );
}

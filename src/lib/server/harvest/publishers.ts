/**
 * A catalogue's publisher becomes one of our departments: found again by website, then acronym,
 * then normalised name, with the seed's own folding (`seed/catalog.ts`: `nameKey`,
 * `acronymInName`), so the seed and the harvest agree on who is who. A publisher not found becomes
 * a new department, online at once: it comes from a catalogue a moderator registered, not from a
 * contributor (whose new institutions wait for review).
 */
import { eq } from 'drizzle-orm';
import { FIELD_MAX } from '../../domain/upload.ts';
import { truncate } from '../../text.ts';
import type { Db } from '../db/index.ts';
import { departments } from '../db/schema.ts';
import { acronymInName, nameKey } from '../seed/catalog.ts';
import type { CatalogPublisher } from './catalogs/index.ts';

interface Known {
  id: number;
  name: string;
  acronym: string | null;
  website: string | null;
}

/** `https://www.One.gob.do/about` → `one.gob.do`: the same site however a list spells its address. */
export function websiteKey(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '') || null;
  } catch {
    return null;
  }
}

/** Our departments, indexed the three ways a publisher is found again; loaded once per run. */
export class PublisherMatcher {
  readonly #byWebsite = new Map<string, number>();
  readonly #byAcronym = new Map<string, number>();
  readonly #byName = new Map<string, number>();
  /** Departments this matcher created, by id. */
  readonly created = new Set<number>();

  private constructor(rows: Known[]) {
    for (const row of rows) this.#remember(row);
  }

  /** Loads every department of `db`. */
  static async load(db: Db): Promise<PublisherMatcher> {
    const rows = await db
      .select({ id: departments.id, name: departments.name, acronym: departments.acronym, website: departments.website })
      .from(departments)
      .orderBy(departments.id);
    return new PublisherMatcher(rows);
  }

  #remember(row: Known): void {
    const website = websiteKey(row.website);
    // The first department wins a key: the seed's publishers came first, as the oldest rows.
    if (website && !this.#byWebsite.has(website)) this.#byWebsite.set(website, row.id);
    const acronym = (row.acronym ?? acronymInName(row.name))?.toUpperCase();
    if (acronym && !this.#byAcronym.has(acronym)) this.#byAcronym.set(acronym, row.id);
    const key = nameKey(row.name);
    if (key && !this.#byName.has(key)) this.#byName.set(key, row.id);
  }

  /** The department already known for `declared`, or undefined. */
  find(declared: CatalogPublisher): number | undefined {
    return this.#find(named(declared), declared);
  }

  /** `find`, for the publisher as its name is kept (`named`) and as the catalogue declares it. */
  #find(publisher: CatalogPublisher, declared: CatalogPublisher): number | undefined {
    const website = websiteKey(publisher.homepage);
    const acronym = (publisher.acronym ?? acronymInName(publisher.name))?.toUpperCase();
    return (
      (website ? this.#byWebsite.get(website) : undefined) ??
      (acronym ? this.#byAcronym.get(acronym) : undefined) ??
      this.#byName.get(nameKey(publisher.name)) ??
      // A department a harvest made before names were cut bears the whole name.
      (publisher.name === declared.name ? undefined : this.#byName.get(nameKey(declared.name)))
    );
  }

  /**
   * The department of `publisher`, created (online) when none matches. Outside the record's
   * transaction, on purpose: a department is kept even if its record fails, so the matcher never
   * remembers an id that was rolled back.
   */
  async findOrCreate(db: Db, declared: CatalogPublisher): Promise<number> {
    const publisher = named(declared);
    const found = this.#find(publisher, declared);
    if (found !== undefined) return found;
    const values = {
      name: publisher.name,
      acronym: publisher.acronym ?? acronymInName(publisher.name),
      website: publisher.homepage,
      reviewStatus: 'on_line' as const,
    };
    // Names are unique: a department of the same exact name (another process, a folding that
    // differs) is that one.
    const [inserted] = await db.insert(departments).values(values).onConflictDoNothing({ target: departments.name }).returning({ id: departments.id });
    const id = inserted?.id ?? (await db.select({ id: departments.id }).from(departments).where(eq(departments.name, publisher.name)))[0]!.id;
    if (inserted) this.created.add(id);
    this.#remember({ id, ...values });
    return id;
  }
}

/** Characters of an acronym a catalogue states: a few letters, not a second name. */
const MAX_ACRONYM = 30;

/**
 * A publisher named as a contributor may name an institution (`FIELD_MAX.name`): the department a
 * catalogue's name of thousands of characters would create heads its page, every list and every
 * record's breadcrumb. Cut before it is matched, so the next run finds the department again.
 */
function named(publisher: CatalogPublisher): CatalogPublisher {
  const name = truncate(publisher.name, FIELD_MAX.name);
  const acronym = publisher.acronym === null ? null : truncate(publisher.acronym, MAX_ACRONYM);
  return name === publisher.name && acronym === publisher.acronym ? publisher : { ...publisher, name, acronym };
}

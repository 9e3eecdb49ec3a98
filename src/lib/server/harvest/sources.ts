/** Registering a catalogue to harvest, with the `source` its records are filed under. */
import { and, eq, like, or, sql } from 'drizzle-orm';
import { isOwnAddress, ownAddressMessage, refusedHost } from '../capture/index.ts';
import type { ArchiveConfig } from '../config.ts';
import type { Db } from '../db/index.ts';
import { ConflictError, ValidationError } from '../http/errors.ts';
import { likeLiteral } from '../queries/record-filter.ts';
import { alexandrias, harvestedRecords, harvestSources, imports, sources, type HarvestSource } from '../db/schema.ts';
import { catalogIdentity, type CatalogKind } from './catalogs/index.ts';
import { catalogueNote } from './map.ts';

export interface NewHarvestSource {
  url: string;
  kind: CatalogKind;
  /** The harvest source's name; when not given, the catalogue's host (`unnamedCatalogueName`). */
  name?: string | undefined;
  /** Where its datasets go when no theme maps to a category. */
  defaultCategoryId?: number | null | undefined;
  /** The catalogue's theme (identifier or label) → category id. */
  themeMap?: Record<string, number> | undefined;
  /** Registered paused: the schedule leaves it alone until a moderator resumes it or runs it. */
  paused?: boolean | undefined;
  /**
   * What the doors people register through (the page, the REST API, `npm run harvest`) refuse in a
   * catalogue new to the archive (`registrationRules`), in Spanish, rather than register it to fail
   * or harm every run. One registered already is found as before, and its runs say why they cannot
   * read it.
   */
  rules?: RegistrationRules | undefined;
}

/** What a new catalogue is checked against; `registrationRules(config)` builds it. */
export interface RegistrationRules {
  /** `captureAllowPrivate`: else an address the archive will never fetch (`refusedHost`) is refused. */
  allowPrivate: boolean;
  /** The hosts the archive itself answers at (`allowedHosts`), never harvested (`capture/own-address.ts`). */
  ownHosts: readonly string[];
}

export function registrationRules(config: Pick<ArchiveConfig, 'captureAllowPrivate' | 'allowedHosts'>): RegistrationRules {
  return { allowPrivate: config.captureAllowPrivate, ownHosts: config.allowedHosts };
}

/** Why a new catalogue is not registered, under `rules`; null when it may be. */
function refusedCatalogue(url: URL, rules: RegistrationRules): string | null {
  if (isOwnAddress(url, rules.ownHosts)) return ownAddressMessage('La dirección del catálogo', url);
  const refused = refusedHost(url, rules.allowPrivate);
  return refused && `La dirección del catálogo apunta a ${refused}: el archivo no lee catálogos de direcciones privadas, locales o reservadas.`;
}

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/**
 * Registrations, moves and deletions of catalogues on `url`'s site (its host) take turns until
 * `tx` ends: each decides from what the others left on the site, and from the source they share.
 */
export async function lockSite(tx: Pick<Db, 'execute'>, url: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('harvest-register'), hashtext(${new URL(url).host}))`);
}

/**
 * The harvest sources of `url`'s site, and the one among them that is the catalogue at `url`
 * (`existing`): the same address, or the same catalogue spelt another way (a CKAN portal's root,
 * then its API's address; http or https, `catalogIdentity`), which a second source would archive
 * again as new records. Registrations and moves on one site take turns, until `tx` ends: two
 * spellings added at the same moment would both find nothing, and a unique URL cannot tell that
 * they are one catalogue. The site is its host, over http or https.
 */
async function catalogueOnSite(tx: Tx, kind: CatalogKind, url: string): Promise<{ onSite: HarvestSource[]; existing: HarvestSource | undefined }> {
  const { host } = new URL(url);
  await lockSite(tx, url);
  const onSite = await tx
    .select()
    .from(harvestSources)
    .where(or(like(harvestSources.url, `http://${likeLiteral(host)}/%`), like(harvestSources.url, `https://${likeLiteral(host)}/%`)));
  const identity = catalogIdentity(kind, url);
  const existing = onSite.find((other) => other.url === url || (other.kind === kind && catalogIdentity(other.kind, other.url) === identity));
  return { onSite, existing };
}

/**
 * The harvest source of `url`, registered if new (`created`), together with our `source` for it.
 * A catalogue registered under another spelling of its address (`catalogIdentity`) is found
 * again. Our `source` is the one whose URL is the catalogue's origin, found again or created.
 * Sources are de-duplicated by URL, so a harvest of the portal the seed loaded
 * (`https://datos.gob.do`) feeds the seed's source.
 */
export async function registerHarvestSource(db: Db, input: NewHarvestSource): Promise<{ harvestSource: HarvestSource; created: boolean }> {
  const url = new URL(input.url).href;
  const { origin } = new URL(url);
  return db.transaction(async (tx) => {
    const { onSite, existing } = await catalogueOnSite(tx, input.kind, url);
    if (existing) return { harvestSource: existing, created: false };
    const name = input.name?.trim() || unnamedCatalogueName(new URL(url), onSite);
    const message = input.rules && refusedCatalogue(new URL(url), input.rules);
    if (message) throw new ValidationError(message, [{ field: 'url', message }]);
    // Unlisted until the catalogue brings a record (`runHarvest`): an address that never answers
    // adds no empty public source.
    await tx.insert(sources).values({ name, url: origin, description: harvestedSourceDescription(url), awaitingHarvest: true }).onConflictDoNothing({ target: sources.url });
    // A source an earlier registration on this site made, that never got a record because every
    // catalogue feeding it failed its last run (a wrong address), is this catalogue's: named after
    // it, not after the mistake. One whose catalogue has not run yet, or is running, keeps its name.
    await tx
      .update(sources)
      .set({ name, description: harvestedSourceDescription(url) })
      .where(
        and(
          eq(sources.url, origin),
          like(sources.description, `${HARVESTED_SOURCE_DESCRIPTION}%`),
          sql`not exists (select 1 from ${alexandrias} where ${alexandrias.sourceId} = ${sources.id})`,
          sql`not exists (
            select 1 from ${harvestSources} h
             where h.source_id = ${sources.id}
               and coalesce((select i.status::text from ${imports} i where i.harvest_source_id = h.id order by i.id desc limit 1), 'none') <> 'failed')`,
        ),
      );
    const [source] = await tx.select({ id: sources.id }).from(sources).where(eq(sources.url, origin));
    const [created] = await tx
      .insert(harvestSources)
      .values({
        url,
        kind: input.kind,
        name,
        sourceId: source!.id,
        defaultCategoryId: input.defaultCategoryId ?? null,
        themeMap: input.themeMap ?? {},
        paused: input.paused ?? false,
      })
      .onConflictDoNothing({ target: harvestSources.url })
      .returning();
    if (created) return { harvestSource: created, created: true };
    // Registered at the same moment by another process: that one stands.
    const [other] = await tx.select().from(harvestSources).where(eq(harvestSources.url, url));
    return { harvestSource: other!, created: false };
  });
}

/**
 * Checks a registered catalogue's new address (the portal moved to https, or its path was mistyped)
 * as a registration is checked, in the turn of the new address's site until `tx` ends: the address
 * of another source's catalogue is that source's (a 409), and one the archive never reads is refused
 * (a 400). The caller changes the address and where it shows (`changeHarvestedCatalogue`); the
 * records stay the source's own, their identity the catalogue's dataset identifiers.
 */
export async function checkNewAddress(tx: Tx, current: Pick<HarvestSource, 'id' | 'kind'>, url: string, rules: RegistrationRules): Promise<void> {
  const { existing } = await catalogueOnSite(tx, current.kind, url);
  if (existing && existing.id !== current.id) {
    throw new ConflictError(`Ya existe una fuente de cosecha para ese catálogo: «${existing.name}», en ${existing.url}.`, { field: 'url' });
  }
  const message = refusedCatalogue(new URL(url), rules);
  if (message) throw new ValidationError(message, [{ field: 'url', message }]);
}

/**
 * The name of a catalogue registered without one: its host, or its host and path when another
 * catalogue of the site bears the host's name already (two unnamed catalogues of one portal would
 * otherwise read the same in every list), numbered when that is taken too (the site's root, whose
 * path adds nothing to its host).
 */
function unnamedCatalogueName(url: URL, onSite: readonly Pick<HarvestSource, 'name'>[]): string {
  const taken = new Set(onSite.map((other) => other.name));
  const withPath = `${url.host}${url.pathname.replace(/\/+$/, '')}${url.search}`.slice(0, 190);
  const candidates = [url.host, withPath];
  for (let number = 2; number <= onSite.length + 2; number++) candidates.push(`${withPath} (${number})`);
  return candidates.find((name) => !taken.has(name))!;
}

/** How a source the archive made for a harvested catalogue describes itself (until a moderator edits it). */
const HARVESTED_SOURCE_DESCRIPTION = 'Catálogo público cosechado por el archivo: ';
const harvestedSourceDescription = (catalogUrl: string) => `${HARVESTED_SOURCE_DESCRIPTION}${catalogUrl}`;

/**
 * A catalogue's first records list the source the archive made for it (`awaiting_harvest`), named
 * and described after this catalogue: the source may have been made by another catalogue on the
 * same site, registered first and never brought a record (a wrong address, added moments before
 * the right one), and the public must read the name of the catalogue whose records it lists. A
 * source a moderator renamed or described otherwise keeps its name and description. Run in the
 * transaction that writes those records.
 */
export async function listCatalogueSource(tx: Tx, catalogue: Pick<HarvestSource, 'sourceId' | 'name' | 'url'>): Promise<void> {
  if (catalogue.sourceId === null) return;
  // As the archive made it: described as a harvested catalogue, and named as one of its catalogues.
  const madeByTheArchive = and(
    like(sources.description, `${HARVESTED_SOURCE_DESCRIPTION}%`),
    sql`exists (select 1 from ${harvestSources} h where h.source_id = ${sources.id} and h.name = ${sources.name})`,
  )!;
  await tx
    .update(sources)
    .set({
      awaitingHarvest: false,
      name: sql`case when ${madeByTheArchive} then ${catalogue.name} else ${sources.name} end`,
      description: sql`case when ${madeByTheArchive} then ${harvestedSourceDescription(catalogue.url)} else ${sources.description} end`,
    })
    .where(and(eq(sources.id, catalogue.sourceId), eq(sources.awaitingHarvest, true)));
}

/**
 * A harvest source's new name or address, wherever the old ones show: its records' provenance
 * notes («…del catálogo «X» (dirección)…», written at each harvest) and the source the archive made
 * for it, while that source still describes itself as this catalogue's. That source follows a new
 * address too (its origin and description) when no other catalogue files its records there and no
 * other source has that origin; else it stays as it is. In `tx`, with the harvest source's own update.
 */
export async function changeHarvestedCatalogue(
  tx: Pick<Db, 'update' | 'execute'>,
  harvestSource: Pick<HarvestSource, 'id' | 'name' | 'url' | 'sourceId'>,
  next: { name: string; url: string },
): Promise<void> {
  if (next.name === harvestSource.name && next.url === harvestSource.url) return;
  const before = catalogueNote(harvestSource, 'captured');
  const after = catalogueNote(next, 'captured');
  // Every row locked first, in one order (by id): a capture writing some of the same records at
  // that moment waits for the change, or the change for it, rather than each holding what the other needs.
  await tx.execute(sql`
    with changed as (
      select ${alexandrias.id} as id from ${alexandrias}
       where ${alexandrias.id} in (select ${harvestedRecords.alexandriaId} from ${harvestedRecords} where ${harvestedRecords.harvestSourceId} = ${harvestSource.id})
         and strpos(${alexandrias.provenanceNote}, ${before}) > 0
       order by ${alexandrias.id}
         for update)
    update ${alexandrias} set provenance_note = replace(provenance_note, ${before}, ${after})
      from changed where ${alexandrias.id} = changed.id`);
  if (harvestSource.sourceId === null) return;
  const madeForIt = (url: string) => and(eq(sources.id, harvestSource.sourceId!), eq(sources.description, harvestedSourceDescription(url)));
  if (next.url !== harvestSource.url) {
    const { origin } = new URL(next.url);
    await tx
      .update(sources)
      .set({ url: origin, description: harvestedSourceDescription(next.url) })
      .where(
        and(
          madeForIt(harvestSource.url),
          sql`not exists (select 1 from ${harvestSources} h where h.source_id = ${sources.id} and h.id <> ${harvestSource.id})`,
          sql`not exists (select 1 from ${sources} other where other.url = ${origin} and other.id <> ${sources.id})`,
        ),
      );
  }
  if (next.name !== harvestSource.name) await tx.update(sources).set({ name: next.name }).where(or(madeForIt(harvestSource.url), madeForIt(next.url)));
}

/**
 * Removes a harvest source that never brought a record (a mistyped address, a catalogue that never
 * answered), and the source the archive made for it while nothing else is filed there: registered
 * by mistake, it would otherwise stay among the public sources for good. A source that existed
 * before (the seed's portal, a contributor's) or that a moderator has described in their own words
 * stays. In `tx`, once the caller has made sure the harvest source holds no record and no run.
 */
export async function forgetHarvestSource(tx: Pick<Db, 'delete' | 'select'>, harvestSource: Pick<HarvestSource, 'id' | 'url' | 'sourceId'>): Promise<void> {
  await tx.delete(harvestSources).where(eq(harvestSources.id, harvestSource.id));
  // Locked before it is looked at: a record filed there meanwhile (an upload naming this source)
  // either committed first, and is seen below, or waits for this transaction and then finds the
  // source gone, rather than losing its source to a deletion that did not see it.
  await tx.select({ id: sources.id }).from(sources).where(eq(sources.id, harvestSource.sourceId)).for('update');
  await tx
    .delete(sources)
    .where(
      and(
        eq(sources.id, harvestSource.sourceId),
        eq(sources.description, harvestedSourceDescription(harvestSource.url)),
        sql`not exists (select 1 from ${alexandrias} where ${alexandrias.sourceId} = ${sources.id})`,
        sql`not exists (select 1 from ${harvestSources} h where h.source_id = ${sources.id})`,
      ),
    );
}

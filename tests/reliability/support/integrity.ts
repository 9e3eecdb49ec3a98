/**
 * "The database passes an integrity check" (issue #10), made concrete: every problem found is
 * one line of Spanish-free plain English in the returned list, empty when the archive is whole.
 *
 * - no upload import left `in_progress`; no uploaded record without its import (done), its proof
 *   entry, its history entry and its local pins; no finished upload import without its record;
 * - `record_counts`, `wallet_counts` (published records per wallet) and `import_format_counts` equal to
 *   a recount of the records;
 * - every record's, proof's and sheet preview's CID readable through the gateway of every server
 *   checked, the bytes matching the record's SHA-256 and size;
 * - every block in the store (the data folder's `blocks/`, or the servers' shared S3 bucket, issue
 *   #21) belonging to one of those files (no orphans), and no staging folder left;
 * - every version of a captured file readable with its SHA-256 and size, numbered 1..n, the record's
 *   file its newest (issue #19);
 * - harvests and the job queue (issue #18; `harvestProblems`): one harvested record per identity,
 *   each with its record; the last finished run of each harvest source counting what it wrote;
 *   every capture that kept a file agreeing with its record, every harvested record's file from a
 *   capture, every finished capture job's record with its file; no job running on an expired
 *   lease; a `job_hosts` row for every job's host;
 * - PostgreSQL's own check of every table and B-tree index (amcheck), where the server has it.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { NextToLast } from 'blockstore-fs/sharding';
import pg from 'pg';
import type { CID } from 'multiformats/cid';
import { createContentStore, s3Blockstore } from '../../../src/lib/server/storage/index.ts';
import type { TestS3 } from '../../helpers/s3.ts';
import { sha256 } from './archive-client.ts';
import { request } from './http.ts';

export interface IntegrityReport {
  problems: string[];
  /** Facts for the report: records checked, blocks on disk, and so on. */
  facts: Record<string, number>;
  /** Problems of the imports left in progress alone (a known failure is reported apart). */
  importsInProgress: Array<{ id: number; type: string; wallet: string | null; updatedAt: Date }>;
}

async function rows<T>(client: pg.Client, sql: string): Promise<T[]> {
  return (await client.query(sql)).rows as T[];
}

/** Files under `dir`, recursively (none when it does not exist). */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

/** Where the servers checked keep their blocks, when not in their data folders' `blocks/`. */
export interface SharedBlocks {
  s3: TestS3;
  prefix: string;
}

/**
 * Checks the archive served at `origin` (or at each of several servers' origins) from `dataDir`
 * (each server's own data folder, for its staging) and the database at `databaseUrl`; blocks in
 * the first data folder's `blocks/`, or in `shared`, the bucket every server reads.
 */
export async function checkIntegrity(
  origin: string | string[],
  databaseUrl: string,
  dataDir: string | string[],
  shared?: SharedBlocks,
): Promise<IntegrityReport> {
  const origins = [origin].flat();
  const dataDirs = [dataDir].flat();
  const problems: string[] = [];
  const facts: Record<string, number> = {};
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const importsInProgress = await rows<{ id: number; type: string; wallet: string | null; updatedAt: Date }>(
      client,
      `select id, type, wallet_address as wallet, updated_at as "updatedAt" from imports where status = 'in_progress' order by id`,
    );
    for (const row of importsInProgress) problems.push(`import ${row.id} (${row.type}, wallet ${row.wallet}) is still in_progress`);

    const broken = await rows<{ id: number; problem: string }>(
      client,
      `select a.id, 'uploaded record without a finished import' as problem from alexandrias a
         left join imports i on i.id = a.import_id
        where a.wallet_address is not null and (i.id is null or i.status <> 'done')
       union all
       select a.id, 'uploaded record without a proof entry' from alexandrias a
        where a.wallet_address is not null and not exists (select 1 from aletheias p where p.alexandria_id = a.id)
       union all
       select a.id, 'uploaded record without its history entry' from alexandrias a
        where a.wallet_address is not null and not exists (select 1 from status_history h where h.alexandria_id = a.id)
       union all
       select a.id, 'record with a CID but no local pin' from alexandrias a
        where a.cid is not null
          and (a.wallet_address is not null or exists (select 1 from harvested_records h where h.alexandria_id = a.id))
          and not exists (select 1 from pins p where p.cid = a.cid and p.provider = 'local')
       union all
       select i.id, 'finished upload import without its record' from imports i
        where i.type = 'single' and i.status = 'done' and not exists (select 1 from alexandrias a where a.import_id = i.id)`,
    );
    for (const row of broken) problems.push(`#${row.id}: ${row.problem}`);

    const countDiff = await rows<{ key: string; kept: number | null; recount: number | null }>(
      client,
      `with recount as (
         select source_id, department_id, category_id, type, status, cid is not null as archived, count(*)::int as n
           from alexandrias group by 1, 2, 3, 4, 5, 6)
       select concat_ws('/', coalesce(r.source_id, c.source_id), coalesce(r.department_id, c.department_id),
                        coalesce(r.category_id, c.category_id), coalesce(r.type, c.type), coalesce(r.status, c.status),
                        coalesce(r.archived, c.archived)) as key, c.n as kept, r.n as recount
         from recount r full join record_counts c
           on r.source_id is not distinct from c.source_id and r.department_id is not distinct from c.department_id
          and r.category_id is not distinct from c.category_id and r.type = c.type and r.status = c.status and r.archived = c.archived
        where r.n is distinct from c.n`,
    );
    for (const row of countDiff) problems.push(`record_counts ${row.key}: kept ${row.kept}, recount ${row.recount}`);
    const walletDiff = await rows<{ wallet: string; kept: number | null; recount: number | null }>(
      client,
      `with recount as (select wallet_address, count(*)::int as n from alexandrias
                        where wallet_address is not null and status = 'on_line' group by 1)
       select coalesce(r.wallet_address, w.wallet_address) as wallet, w.n as kept, r.n as recount
         from recount r full join wallet_counts w on w.wallet_address = r.wallet_address
        where r.n is distinct from w.n and coalesce(w.n, 0) + coalesce(r.n, 0) > 0`,
    );
    for (const row of walletDiff) problems.push(`wallet_counts ${row.wallet}: kept ${row.kept}, recount ${row.recount}`);
    const importDiff = await rows<{ key: string; kept: number | null; recount: number | null }>(
      client,
      `with recount as (select import_id, type, count(*)::int as n from alexandrias where import_id is not null group by 1, 2)
       select concat_ws('/', coalesce(r.import_id, c.import_id), coalesce(r.type, c.type)) as key, c.n as kept, r.n as recount
         from recount r full join import_format_counts c on c.import_id = r.import_id and c.type = r.type
        where r.n is distinct from c.n`,
    );
    for (const row of importDiff) problems.push(`import_format_counts ${row.key}: kept ${row.kept}, recount ${row.recount}`);

    // Every stored file, read back through the gateway as a visitor would.
    // Sheet previews (CSV extracted from a spreadsheet record) are files of the store too, where
    // the archive has them.
    const previews = (await rows<{ table: string | null }>(client, `select to_regclass('sheet_previews')::text as table`))[0]?.table
      ? `union all select alexandria_id, cid, null, null, 'sheet preview' from sheet_previews`
      : '';
    // Every version of a captured record's file (issue #19), the current one and the older ones.
    const hasVersions = (await rows<{ table: string | null }>(client, `select to_regclass('record_versions')::text as table`))[0]?.table;
    const versions = hasVersions ? `union all select alexandria_id, cid, sha256, size::float8, 'version ' || number from record_versions` : '';
    if (hasVersions) {
      const notNewest = await rows<{ id: number; cid: string | null; newest: string }>(
        client,
        `select a.id, a.cid, v.cid as newest from alexandrias a
           join lateral (select cid from record_versions where alexandria_id = a.id order by number desc limit 1) v on true
          where a.cid is distinct from v.cid`,
      );
      for (const row of notNewest) problems.push(`#${row.id}: its file ${row.cid} is not its newest version's (${row.newest})`);
      const gaps = await rows<{ id: number }>(
        client,
        `select alexandria_id as id from record_versions group by alexandria_id having max(number) <> count(*) or min(number) <> 1`,
      );
      for (const row of gaps) problems.push(`#${row.id}: its versions are not numbered 1..n`);
    }
    const files = await rows<{ id: number; cid: string; sha: string | null; size: number | null; kind: string }>(
      client,
      `select id, cid, file_sha256 as sha, file_size::float8 as size, 'record' as kind from alexandrias where cid is not null
       union all
       select alexandria_id, cid, null, file_size::float8, 'proof' from aletheias
       ${previews}
       ${versions}`,
    );
    facts.filesChecked = files.length;
    for (const [index, server] of origins.entries()) {
      const from = origins.length > 1 ? ` on server ${index + 1}` : '';
      const queue = [...files];
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let file = queue.shift(); file; file = queue.shift()) {
            const answer = await request(server, `/ipfs/${file.cid}`).catch((error: Error) => ({ status: 0, body: Buffer.from(error.message) }));
            if (answer.status !== 200) problems.push(`${file.kind} of #${file.id}: /ipfs/${file.cid} answered ${answer.status}${from}`);
            else if (file.sha && sha256(answer.body) !== file.sha) problems.push(`${file.kind} of #${file.id}: bytes of ${file.cid} do not match file_sha256${from}`);
            else if (file.size !== null && answer.body.length !== file.size) problems.push(`${file.kind} of #${file.id}: ${answer.body.length} bytes, file_size says ${file.size}${from}`);
          }
        }),
      );
    }

    // Blocks in the store that no record or proof needs: left by an upload that was not accepted.
    // Named by CID: the file name on disk (its multihash in the store's layout), the key in a bucket.
    const layout = new NextToLast();
    const blocksDir = path.join(dataDirs[0]!, 'blocks');
    const stored = shared
      ? (await shared.s3.keys(shared.prefix)).map((key) => key.slice(shared.prefix.length))
      : // Blocks only: the folder also keeps its own name (`storage/store-identity.ts`).
        (await filesUnder(blocksDir)).map((file) => path.basename(file)).filter((name) => name.endsWith(layout.extension));
    facts.blocksInStore = stored.length;
    const nameOf = (cid: CID) => (shared ? cid.toV1().toString() : layout.encode(cid).file);
    const needed = new Set<string>();
    const store = createContentStore(shared ? { blockstore: s3Blockstore(shared.s3.settings(shared.prefix)) } : { dir: blocksDir });
    for (const cid of new Set(files.map((file) => file.cid))) {
      try {
        for await (const block of store.blocks(cid)) needed.add(nameOf(block.cid));
      } catch (error) {
        problems.push(`blocks of ${cid}: ${(error as Error).message}`);
      }
    }
    await store.close();
    const orphans = stored.filter((name) => !needed.has(name));
    facts.orphanBlocks = orphans.length;
    if (orphans.length > 0) problems.push(`${orphans.length} block(s) in the store belong to no record, proof or preview (e.g. ${orphans[0]})`);

    for (const dir of dataDirs) {
      const staged = await fs.readdir(path.join(dir, 'staging')).catch(() => []);
      if (staged.length > 0) problems.push(`${staged.length} staging folder(s) left in ${dir}: ${staged.slice(0, 3).join(', ')}`);
    }

    problems.push(...(await harvestProblems(client, facts)));
    problems.push(...(await amcheck(client, facts)));
    return { problems, facts, importsInProgress };
  } finally {
    await client.end();
  }
}

/**
 * The harvest's tables and the job queue (see the module's header). A lease is "expired" here
 * only 5 s past its end: a live worker takes such jobs back within a second (`reclaimExpired`),
 * and the check must not race it.
 */
async function harvestProblems(client: pg.Client, facts: Record<string, number>): Promise<string[]> {
  const problems: string[] = [];
  const broken = await rows<{ id: string; problem: string }>(
    client,
    `select concat_ws('/', harvest_source_id, dataset_identifier, distribution_key) as id,
            count(*) || ' harvested records share one identity' as problem
       from harvested_records group by harvest_source_id, dataset_identifier, distribution_key having count(*) > 1
     union all
     select h.alexandria_id::text, 'harvested record without its record' from harvested_records h
      where not exists (select 1 from alexandrias a where a.id = h.alexandria_id)
     union all
     select a.id::text, 'harvested record with a CID that no capture kept' from alexandrias a
       join harvested_records h on h.alexandria_id = a.id
      where a.cid is not null and not exists (select 1 from captures c where c.alexandria_id = a.id and c.cid = a.cid)
     union all
     select c.id::text, 'capture kept a file without its SHA-256 or size' from captures c
      where c.cid is not null and (c.sha256 is null or c.size is null)
     union all
     select c.id::text, 'capture kept ' || c.cid || ' (' || c.size || ' bytes) but its record #' || a.id || ' says '
            || coalesce(a.cid, 'no CID') || ' (' || coalesce(a.file_size::text, '?') || ' bytes)'
       from captures c join alexandrias a on a.id = c.alexandria_id
      where c.cid is not null
        and (a.cid is distinct from c.cid or a.file_sha256 is distinct from c.sha256 or a.file_size is distinct from c.size)
     union all
     select j.id::text, 'finished capture job whose record #' || (j.payload->>'alexandriaId') || ' has no file kept by a capture'
       from jobs j left join alexandrias a on a.id = (j.payload->>'alexandriaId')::int
      where j.kind = 'capture' and j.status = 'done'
        and (a.cid is null or not exists (select 1 from captures c where c.alexandria_id = a.id and c.cid = a.cid))
     union all
     select j.id::text, j.kind || ' job running on a lease that expired at ' || j.locked_until || ' (' || j.locked_by || ')'
       from jobs j where j.status = 'running' and j.locked_until < now() - interval '5 seconds'
     union all
     select distinct j.host, 'job host without its job_hosts row' from jobs j
      where j.host is not null and not exists (select 1 from job_hosts h where h.host = j.host)`,
  );
  for (const row of broken) problems.push(`${row.id}: ${row.problem}`);

  // The last finished run of each harvest source against what it wrote: records it created, and,
  // when no run came after it, the records it saw. Its counts: seen = new + updated + unchanged,
  // and imported (its `documents`) = new + updated.
  const runs = await rows<{
    id: number;
    source: number;
    documents: number;
    failedDocuments: number;
    counts: { new: number; updated: number; unchanged: number; withdrawn: number; failed: number } | null;
    latest: boolean;
    created: number;
    seen: number;
    withdrawn: number;
  }>(
    client,
    `select i.id, i.harvest_source_id as source, i.documents, i.documents_failed as "failedDocuments", i.harvest_counts as counts,
            not exists (select 1 from imports later where later.harvest_source_id = i.harvest_source_id and later.id > i.id) as latest,
            (select count(*)::int from alexandrias a where a.import_id = i.id) as created,
            (select count(*)::int from harvested_records h where h.last_seen_import_id = i.id) as seen,
            (select count(*)::int from harvested_records h where h.harvest_source_id = i.harvest_source_id and h.withdrawn_at is not null) as withdrawn
       from imports i
      where i.id = (select max(last.id) from imports last where last.harvest_source_id = i.harvest_source_id and last.status = 'done')`,
  );
  for (const run of runs) {
    const counts = run.counts;
    const name = `harvest run (import ${run.id}) of harvest source ${run.source}`;
    if (!counts) {
      problems.push(`${name}: finished without harvest_counts`);
      continue;
    }
    const counted = counts.new + counts.updated + counts.unchanged;
    if (run.documents !== counts.new + counts.updated) problems.push(`${name}: documents ${run.documents}, but new + updated = ${counts.new + counts.updated}`);
    if (run.failedDocuments !== counts.failed) problems.push(`${name}: documents_failed ${run.failedDocuments}, harvest_counts.failed ${counts.failed}`);
    if (run.created !== counts.new) problems.push(`${name}: counts ${counts.new} new, but ${run.created} record(s) belong to its import`);
    if (run.latest && run.seen !== counted) problems.push(`${name}: counts ${counted} seen, but ${run.seen} harvested record(s) were last seen by it`);
    if (run.withdrawn < counts.withdrawn) problems.push(`${name}: counts ${counts.withdrawn} withdrawn, but ${run.withdrawn} harvested record(s) are`);
  }

  const [numbers] = await rows<{ harvested: number; captures: number; jobs: number }>(
    client,
    `select (select count(*)::int from harvested_records) as harvested, (select count(*)::int from captures) as captures,
            (select count(*)::int from jobs) as jobs`,
  );
  facts.harvestedRecords = numbers?.harvested ?? 0;
  facts.captures = numbers?.captures ?? 0;
  facts.jobs = numbers?.jobs ?? 0;
  facts.harvestRunsChecked = runs.length;
  return problems;
}

/** PostgreSQL's amcheck over every table (heap) and B-tree index of the public schema. */
async function amcheck(client: pg.Client, facts: Record<string, number>): Promise<string[]> {
  const problems: string[] = [];
  try {
    await client.query('create extension if not exists amcheck');
    const tables = await rows<{ name: string }>(
      client,
      `select c.oid::regclass::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind = 'r'`,
    );
    for (const { name } of tables) {
      const corrupt = await rows<{ msg: string }>(client, `select msg from verify_heapam('${name}'::regclass)`);
      for (const row of corrupt) problems.push(`table ${name}: ${row.msg}`);
    }
    const indexes = await rows<{ name: string }>(
      client,
      `select c.oid::regclass::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
         join pg_am am on am.oid = c.relam where n.nspname = 'public' and c.relkind = 'i' and am.amname = 'btree'`,
    );
    for (const { name } of indexes) {
      // heapallindexed: every heap tuple must be found in the index, not only the index sane.
      await client.query(`select bt_index_check('${name}'::regclass, true)`).catch((error: Error) => problems.push(`index ${name}: ${error.message}`));
    }
    facts.tablesChecked = tables.length;
    facts.indexesChecked = indexes.length;
  } catch (error) {
    // A server without the contrib modules, or a role that may not use them: say so, check the rest.
    console.warn(`amcheck no disponible en este servidor: ${(error as Error).message}`);
    facts.amcheckSkipped = 1;
  }
  return problems;
}

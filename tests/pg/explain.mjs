// PostgreSQL's own plan for the full-scan incident's scan, pinned: with the index on
// (status, next_retry_at) an Index Scan, without it a Seq Scan that reads the whole table.
// Builds the incident's tables at its first scan (the insight worker's `tables` answer, run
// natively), runs the scan's query (as `outbox-sim run full-scan-incident --sql` writes it)
// under EXPLAIN ANALYZE in PGlite (PostgreSQL compiled to wasm, from the tools folder), and
// compares the plans with src/sim/plans/full-scan-incident.txt, which the lab shows learners.
// UPDATE_PLANS=1 rewrites that file.
//   node tests/pg/explain.mjs
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const require = createRequire(path.join(process.env.OUTBOX_LAB_TOOLS || '.', 'node_modules', 'x.js'));
const { PGlite } = await import(require.resolve('@electric-sql/pglite'));
const PINNED = 'src/sim/plans/full-scan-incident.txt';
const cargo = (bin, args, input) => execFileSync('cargo', ['run', '--quiet', '--bin', bin, '--', ...args], { input, encoding: 'utf8', maxBuffer: 1 << 28 });

const trace = cargo('outbox-sim', ['run', 'full-scan-incident', '--trace']).trim().split('\n').map((l) => JSON.parse(l));
const scan = trace.find((e) => e.kind === 'RelayScanned');
// The statement reads the tables as they were when it started (its snapshot), and the two
// runs (with and without the index) are the same event for event up to there.
const started = trace.find((e) => e.kind === 'RelayScanStarted');
// The scan's own statement, from the run's SQL script.
const script = cargo('outbox-sim', ['run', 'full-scan-incident', '--sql']);
const block = script.split(/^-- @session /m).find((b) => new RegExp(`#${scan.seq} RelayScanned`).test(b.split('\n')[0]));
if (!block) throw new Error(`no statement for event #${scan.seq} in the --sql script`);
// The block may open the relay's transaction first (BEGIN; for FOR UPDATE): take its SELECT.
const body = block.split('\n').slice(1).filter((l) => !l.startsWith('--')).join('\n');
const at = body.search(/^SELECT /m);
if (at < 0) throw new Error(`no SELECT for event #${scan.seq}: ${body}`);
const query = body.slice(at, body.indexOf(';', at)).trim();

const plans = [];
for (const index of [true, false]) {
  // The tables just before the scan started (step seq shows the state before event seq);
  // the answer's second part, after \u0001, is that event's statements.
  const tables = cargo('outbox-insight', [], `tables\n?scenario=full-scan-incident&step=${started.seq}&cfg=index:${index}`).split('\u0001')[0];
  const db = await PGlite.create();
  await db.exec(tables);
  await db.exec('ANALYZE');
  const rows = (await db.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ${query}`)).rows.map((r) => r['QUERY PLAN']);
  const version = (await db.query('SELECT version()')).rows[0].version.split(' on ')[0];
  plans.push({ index, rows, version });
  await db.close();
}
const text = [
  `-- PostgreSQL's plan for the full-scan incident's first scan (started at event #${started.seq}, returned at`,
  `-- #${scan.seq}: ${scan.rows_examined} rows examined by the model), on the tables as the scan started, from`,
  `-- EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF)`,
  `-- in ${plans[0].version}. Made and checked by tests/pg/explain.mjs (UPDATE_PLANS=1 rewrites it).`,
  `-- ${query.replace(/\s+/g, ' ')}`,
  ...plans.flatMap((p) => [`== index=${p.index}`, ...p.rows]),
  '',
].join('\n');

let failures = 0;
const ok = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) failures++; };
const [withIndex, without] = plans.map((p) => p.rows.join('\n'));
ok(/Index Scan using ix_outbox_status_next on outbox/.test(withIndex) && !/Seq Scan/.test(withIndex), 'with the index: an Index Scan on (status, next_retry_at)');
ok(/Seq Scan on outbox/.test(without) && /Rows Removed by Filter: \d{5,}/.test(without), `without it: a Seq Scan that reads the whole table (${(without.match(/Rows Removed by Filter: \d+/) || [''])[0]})`);
if (process.env.UPDATE_PLANS) {
  fs.writeFileSync(PINNED, text);
  console.log(`wrote ${PINNED}`);
} else {
  const pinned = fs.existsSync(PINNED) ? fs.readFileSync(PINNED, 'utf8') : '';
  ok(pinned === text, pinned === text ? `the plans match ${PINNED}` : `the plans differ from ${PINNED} (UPDATE_PLANS=1 rewrites it):\n${text}`);
}
console.log(failures ? `${failures} plan check(s) failed` : 'all plan checks passed');
process.exit(failures ? 1 : 0);

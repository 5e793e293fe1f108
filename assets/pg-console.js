// The Postgres console of the SQL panel: PostgreSQL compiled to WebAssembly (PGlite, in
// ./pglite/), loaded the first time a learner opens it, never on the first load. It starts
// from the lab's tables as they were just before the event on screen: it asks the insight
// worker (`worker`) for them as SQL (`tables\n<link>`: the schema and the rows, by the core's
// sql_dump, then the event's own statements, by the core's sql), and runs what the learner
// types: the event's statements (which take the tables to the step on screen), the next
// scan's query, EXPLAIN, or their own. Everything a query returns is shown as text.
//
// open(container, { link, worker, scan, lang, step }) builds the console in
// `container` (or reuses it) and loads the tables again.

const WORDS = {
  zh: {
    region: 'PostgreSQL 控制台',
    loading: '正在载入 PostgreSQL（PGlite，浏览器里的 PostgreSQL，首次约 5 MB）…',
    loadingTables: '正在按当前一步建表、写入数据…',
    ready: (version, step) => `就绪：${version}。表里是第 ${step} 步这个事件发生之前的数据；点「面板里的语句」再运行，就把这一步自己走一遍。改动只留在这个控制台里。`,
    failed: (why) => `PostgreSQL 载入失败：${why}`,
    sql: 'SQL',
    run: '运行（Ctrl+Enter）',
    shown: '面板里的语句',
    scan: '下一轮扫描的查询',
    explain: 'EXPLAIN',
    rows: (n) => `${n} 行`,
    more: (n) => `…还有 ${n} 行没显示`,
    done: (command, n) => `${command} 完成，影响 ${n} 行`,
    empty: '（没有语句）',
  },
  en: {
    region: 'PostgreSQL console',
    loading: 'Loading PostgreSQL (PGlite: PostgreSQL in the browser, about 5 MB the first time)…',
    loadingTables: 'Creating the tables as they are at this step…',
    ready: (version, step) => `Ready: ${version}, with the tables as they were just before the event of step ${step}: run "The statement shown" to take that step yourself. Changes stay in this console.`,
    failed: (why) => `PostgreSQL did not load: ${why}`,
    sql: 'SQL',
    run: 'Run (Ctrl+Enter)',
    shown: 'The statement shown',
    scan: "The next scan's query",
    explain: 'EXPLAIN',
    rows: (n) => `${n} row(s)`,
    more: (n) => `… ${n} more row(s) not shown`,
    done: (command, n) => `${command}: ${n} row(s) affected`,
    empty: '(no statement)',
  },
};

/** Values as PostgreSQL prints them (timestamps, JSON, bigints as text, not JS objects). */
const AS_TEXT = { parsers: { 20: String, 114: String, 1082: String, 1114: String, 1184: String, 3802: String } };

/** Rows shown per result. */
const MAX_ROWS = 200;

let database = null;
let tablesWorker = null;

/** The tables just before the event the link's step shows, and that event's statements,
 *  as SQL, from the insight worker (its own instance): [tables, statements]. */
function tablesAt(options) {
  if (!tablesWorker) tablesWorker = new Worker(options.worker);
  return new Promise((resolve, reject) => {
    tablesWorker.onmessage = (e) => {
      const text = String(e.data);
      const at = text.indexOf('\u0001');
      resolve(at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)]);
    };
    tablesWorker.onerror = (e) => { tablesWorker = null; reject(new Error(e.message || 'the worker did not start')); };
    tablesWorker.postMessage(`tables\n${options.link}`);
  });
}

function pglite() {
  if (!database) {
    database = import('./pglite/index.js').then(({ PGlite }) => PGlite.create());
    database.catch(() => { database = null; });
  }
  return database;
}

const STYLE = `
.pg-console { border-top: 1px solid var(--line, #8884); margin-top: .5rem; padding-top: .5rem; }
.pg-console textarea { width: 100%; box-sizing: border-box; font: .78rem ui-monospace, Menlo, Consolas, monospace; min-height: 7rem; background: var(--paper, #fff); color: inherit; border: 1px solid var(--line, #8886); border-radius: 6px; padding: .4rem; }
.pg-console .pg-actions { display: flex; flex-wrap: wrap; gap: .3rem; margin: .3rem 0; }
.pg-console .pg-status { font-size: .8rem; color: var(--muted, #666); margin: .2rem 0; }
.pg-console .pg-error { color: var(--bad, #b00020); white-space: pre-wrap; font-size: .8rem; }
.pg-console .pg-result { overflow-x: auto; max-height: 24rem; }
.pg-console table { border-collapse: collapse; font: .75rem ui-monospace, Menlo, Consolas, monospace; margin: .3rem 0; }
.pg-console th, .pg-console td { border: 1px solid var(--line, #8884); padding: .1rem .35rem; text-align: left; white-space: pre; }
.pg-console caption { text-align: left; font-size: .75rem; color: var(--muted, #666); }
`;

function element(tag, attributes = {}, text) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  if (text !== undefined) el.textContent = text;
  return el;
}

function build(container, words) {
  if (!document.getElementById('pg-console-style')) {
    document.head.appendChild(element('style', { id: 'pg-console-style' }, STYLE));
  }
  const root = element('div', { class: 'pg-console', role: 'region', 'aria-label': words.region, 'data-testid': 'pg-box' });
  const status = element('p', { class: 'pg-status', role: 'status', 'data-testid': 'pg-status' });
  const label = element('label', {}, words.sql);
  const input = element('textarea', { spellcheck: 'false', 'data-testid': 'pg-sql', rows: '7' });
  label.appendChild(input);
  const actions = element('div', { class: 'pg-actions' });
  const button = (testid, text) => actions.appendChild(element('button', { type: 'button', 'data-testid': testid }, text));
  const parts = {
    root, status, input, words,
    run: button('pg-run', words.run),
    shown: button('pg-shown', words.shown),
    scan: button('pg-scan', words.scan),
    explain: button('pg-explain', words.explain),
    result: element('div', { class: 'pg-result', 'data-testid': 'pg-result', 'aria-live': 'polite' }),
    options: {},
  };
  root.append(status, label, actions, parts.result);
  container.replaceChildren(root);
  parts.run.addEventListener('click', () => run(parts));
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(parts); }
  });
  parts.shown.addEventListener('click', () => { input.value = parts.options.statement || ''; input.focus(); });
  parts.scan.addEventListener('click', () => { input.value = parts.options.scan || ''; run(parts); });
  parts.explain.addEventListener('click', () => {
    // Comment lines first would leave EXPLAIN alone on a commented line: drop them.
    const sql = input.value.split('\n').filter((l) => !/^\s*--/.test(l)).join('\n').trim().replace(/^explain\s+/i, '');
    input.value = `EXPLAIN ${sql}`;
    run(parts);
  });
  return parts;
}

function showResults(parts, results) {
  const out = [];
  for (const r of results) {
    if (r.fields && r.fields.length) {
      const table = element('table', { 'data-testid': 'pg-rows' });
      table.appendChild(element('caption', {}, parts.words.rows(r.rows.length)));
      const head = element('tr');
      for (const f of r.fields) head.appendChild(element('th', {}, f.name));
      table.appendChild(head);
      for (const row of r.rows.slice(0, MAX_ROWS)) {
        const tr = element('tr');
        for (const f of r.fields) {
          const v = row[f.name];
          tr.appendChild(element('td', {}, v === null ? 'NULL' : v instanceof Date ? v.toISOString() : typeof v === 'object' ? JSON.stringify(v) : String(v)));
        }
        table.appendChild(tr);
      }
      out.push(table);
      if (r.rows.length > MAX_ROWS) out.push(element('p', { class: 'pg-status' }, parts.words.more(r.rows.length - MAX_ROWS)));
    } else if (r.command) {
      out.push(element('p', { class: 'pg-status' }, parts.words.done(r.command, r.rowCount ?? r.affectedRows ?? 0)));
    }
  }
  parts.result.replaceChildren(...out);
}

async function run(parts) {
  const sql = parts.input.value;
  if (!sql.trim()) {
    parts.result.replaceChildren(element('p', { class: 'pg-status' }, parts.words.empty));
    return;
  }
  try {
    const db = await pglite();
    showResults(parts, await db.exec(sql, AS_TEXT));
  } catch (e) {
    parts.result.replaceChildren(element('p', { class: 'pg-error', role: 'alert', 'data-testid': 'pg-error' }, `ERROR: ${e.message}`));
  }
}

export async function open(container, options) {
  const words = WORDS[options.lang] || WORDS.en;
  let parts = container.__pgConsole;
  if (!parts || parts.words !== words) {
    parts = build(container, words);
    container.__pgConsole = parts;
  }
  parts.options = options;
  parts.input.value = '';
  parts.root.setAttribute('data-state', 'loading');
  parts.status.textContent = words.loading;
  try {
    const [db, [tables, statements]] = await Promise.all([pglite(), tablesAt(options)]);
    parts.options.statement = statements;
    parts.input.value = statements;
    parts.status.textContent = words.loadingTables;
    await db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
    await db.exec(tables);
    const version = (await db.query('SELECT version()')).rows[0].version.split(' on ')[0];
    parts.status.textContent = words.ready(version, options.step);
    parts.root.setAttribute('data-state', 'ready');
    parts.result.replaceChildren();
    parts.input.focus();
  } catch (e) {
    parts.status.textContent = words.failed(e.message || String(e));
    parts.root.setAttribute('data-state', 'failed');
  }
}

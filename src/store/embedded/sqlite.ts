/**
 * Every better-sqlite3 object the store makes, made here and kept until the
 * process exits.
 *
 * better-sqlite3 12 wraps its databases, statements and iterators in
 * `node::ObjectWrap`. On Node.js 24 an ObjectWrap registers an environment
 * cleanup hook when it is made and removes it in its destructor, asserting
 * that a JavaScript context is entered. V8 also collects garbage in tasks
 * that run outside any context, so a dropped statement aborts the process
 * whenever such a task frees it ("Assertion failed: (env) != nullptr" in
 * `Statement::~Statement`): most searches did, as timing allowed. At exit
 * Node's own cleanup hooks free what is still alive, with the environment
 * present, which is safe.
 *
 * So no such object is ever let go: databases are opened and statements
 * prepared through this module, which holds them; nothing calls `pragma()`
 * (it prepares a statement of its own each time) or `iterate()` (it makes an
 * iterator object each time). The SQL texts must form a finite set: a list
 * travels as one JSON parameter read with `json_each`, never as a number of
 * placeholders that grows with it. better-sqlite3 13 fixes this with
 * Node-API, but it needs Node.js 22, and this package still supports 20.
 */
import Database from 'better-sqlite3';

/** Held until exit; never read. */
const held = new Set<Database.Database>();
const statementsOf = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/**
 * Opens a database that lives until the process exits (closing it is still allowed, and frees
 * its file). An index may come from elsewhere (a clone, a restored cache), so every connection
 * is defensive: better-sqlite3 sets SQLITE_DBCONFIG_DEFENSIVE on each one (nothing here calls
 * `unsafeMode()`, which would clear it), and `trusted_schema` off lets the functions and
 * virtual tables a schema names run only where SQLite deems them harmless
 * (schema-check.ts refuses a schema that is not ours).
 */
export function openSqlite(path: string, options?: Database.Options): Database.Database {
  const db = new Database(path, options);
  held.add(db);
  setPragma(db, 'trusted_schema = OFF');
  return db;
}

/**
 * The statement for this SQL text on this database, prepared on first use
 * and kept. A text has one reading mode: a caller that sets `pluck()` or
 * `raw()` on it sets it for every user of that text.
 */
export function prepared<Params extends unknown[] | Record<string, unknown> = unknown[], Row = unknown>(
  db: Database.Database,
  sql: string,
): Database.Statement<Params, Row> {
  let statements = statementsOf.get(db);
  if (!statements) {
    statements = new Map();
    statementsOf.set(db, statements);
    held.add(db);
  }
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement as Database.Statement<Params, Row>;
}

/** A pragma's value (`user_version`, `query_only`): its first column. */
export function pragmaValue(db: Database.Database, pragma: string): unknown {
  return prepared(db, `PRAGMA ${pragma}`).pluck().get();
}

/** A pragma's rows (`quick_check(5)`). */
export function pragmaRows<Row>(db: Database.Database, pragma: string): Row[] {
  return prepared<[], Row>(db, `PRAGMA ${pragma}`).all();
}

/** Sets a pragma (`journal_mode = WAL`): exec makes no statement object. */
export function setPragma(db: Database.Database, assignment: string): void {
  db.exec(`PRAGMA ${assignment}`);
}

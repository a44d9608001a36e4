/**
 * ftsTokens (src/text/fts-tokens.ts) throughput on this repository's src/: the files as written and
 * as the store feeds them to FTS5 (lexicalText), on a first pass (empty term cache) and on later
 * ones; SQLite's FTS5 inserting the same text (tokenizer and index) for scale.
 *
 *   node node_modules/vite-node/vite-node.mjs bench/fts-tokens.ts
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// An internal bench: FTS5 inserting the same text is timed in SQLite opened as the embedded store opens it.
import { openSqlite, prepared } from '../src/store/embedded/sqlite.js';
import { FTS_TOKENIZE, ftsTokens } from '../src/text/fts-tokens.js';
import { lexicalText } from '../src/text/terms.js';
import { describeMachine } from '../eval/lib/machine.js';
import { median, printTable } from '../eval/lib/stats.js';

const SECONDS = 2;
const src = fileURLToPath(new URL('../src', import.meta.url));
const files = (readdirSync(src, { recursive: true }) as string[])
  .filter((name) => name.endsWith('.ts'))
  .sort()
  .map((name) => readFileSync(join(src, name), 'utf8'));
const lexical = files.map((text) => lexicalText(text));

interface Pass {
  tokens: number;
  ms: number;
}

function pass(texts: readonly string[]): Pass {
  const start = performance.now();
  let tokens = 0;
  for (const text of texts) tokens += ftsTokens(text).length;
  return { tokens, ms: performance.now() - start };
}

/** Passes for about SECONDS; the median one. */
function steady(texts: readonly string[]): Pass {
  const passes: Pass[] = [];
  const until = performance.now() + SECONDS * 1000;
  while (performance.now() < until || passes.length < 5) passes.push(pass(texts));
  const ms = median(passes.map((p) => p.ms));
  return { tokens: passes[0]!.tokens, ms };
}

function sqliteInsert(texts: readonly string[]): Pass {
  const db = openSqlite(':memory:');
  try {
    db.exec(`CREATE VIRTUAL TABLE docs USING fts5(body, content = '', tokenize = '${FTS_TOKENIZE}')`);
    const insert = prepared<[number, string]>(db, 'INSERT INTO docs (rowid, body) VALUES (?, ?)');
    const start = performance.now();
    db.transaction(() => texts.forEach((text, i) => insert.run(i + 1, text)))();
    return { tokens: Number.NaN, ms: performance.now() - start };
  } finally {
    db.close();
  }
}

const bytes = (texts: readonly string[]) => texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
const rate = (n: number, ms: number) => `${(((n / ms) * 1000) / 1e6).toFixed(2)} M/s`;
const row = (name: string, texts: readonly string[], p: Pass, tokens = p.tokens): string[] => [
  name,
  `${(bytes(texts) / 2 ** 20).toFixed(2)} MiB`,
  String(tokens),
  `${p.ms.toFixed(1)} ms`,
  rate(tokens, p.ms),
  `${((bytes(texts) / 2 ** 20 / p.ms) * 1000).toFixed(1)} MiB/s`,
];

const cold = pass(files);
const raw = steady(files);
const fed = steady(lexical);
printTable(
  `ftsTokens over src/ (${files.length} files), ${describeMachine()}`,
  ['text', 'size', 'tokens', 'time', 'tokens/s', 'throughput'],
  [
    row('src/ as written, first pass', files, cold),
    row('src/ as written', files, raw),
    row('src/ through lexicalText', lexical, fed),
    row('SQLite FTS5 insert, as written', files, sqliteInsert(files), raw.tokens),
    row('SQLite FTS5 insert, lexicalText', lexical, sqliteInsert(lexical), fed.tokens),
  ],
);

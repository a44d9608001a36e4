/**
 * Issue 54, case 5: a vectors file that came with the indexed directory (a
 * clone, a tarball, a cache) never reaches FAISS in this process unchecked.
 * Its checksum proves nothing (anyone computes it), and FAISS's parser trusts
 * its bytes: the two fixtures, containers whose checksum verifies, crashed
 * oc-vector-search, the MCP server and the indexer (SIGSEGV building an id
 * map's reverse map, SIGFPE in a product quantizer with no sub-quantizers).
 * Only a file whose stat, change time and inode included, is the one the
 * index recorded when it wrote it here is parsed in this process; any other
 * is checked in a child process first. The victims run in a child process
 * (untrusted-vectors-child.ts), so that a crash fails a test.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FaissIndex, Indexer, Searcher } from '../../src/index.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { openIndex } from '../../src/store/embedded/open-index.js';
import type { VectorIndexEvent } from '../../src/store/embedded/vector-file.js';
import { fileIdentity } from '../../src/store/embedded/vector-files.js';
import { cleanedUpAfterEach } from '../helpers/repo.js';
import { searchRepo } from '../helpers/search-repo.js';
import {
  UNTRUSTED_FIXTURES,
  linesOf,
  plantVectorFile,
  recordedVectorFile,
  runVictim,
} from '../helpers/untrusted-vectors.js';
import { randomVectors } from '../helpers/vectors.js';
import { xxh64 } from '../helpers/xxh64.js';

const owned = cleanedUpAfterEach();

/** FAISS's index header: fourcc, d (i32), ntotal (i64), two unused i64, is_trained (u8), metric (i32). */
const FAISS_HEADER = 37;

/** The fixtures, each with the damage that crashed FAISS's reader checked to be there. */
const FIXTURES = {
  'idmap-ntotal.ocvx': (payload: Buffer) => {
    expect(payload.toString('latin1', 0, 4)).toBe('IxM2');
    expect(payload.readBigInt64LE(8)).toBe(8n + (1n << 40n)); // 8 vectors held, 2^40 more announced
  },
  'pq-no-subquantizers.ocvx': (payload: Buffer) => {
    expect(payload.toString('latin1', 0, 4)).toBe('IxPq');
    expect(payload.readBigUInt64LE(FAISS_HEADER + 8)).toBe(0n); // M, the number of sub-quantizers
  },
} as const;

/** A fixture's bytes, after checking that its checksum verifies: nothing but FAISS's parser would refuse it. */
function fixture(name: keyof typeof FIXTURES): Buffer {
  const bytes = readFileSync(join(UNTRUSTED_FIXTURES, name));
  expect(bytes.toString('latin1', 0, 8)).toBe('OCVECIDX');
  const payload = bytes.subarray(32);
  expect(bytes.readBigUInt64LE(16)).toBe(BigInt(payload.length));
  expect(bytes.readBigUInt64LE(24)).toBe(xxh64(payload));
  FIXTURES[name](payload);
  return bytes;
}

async function indexed() {
  const repo = (owned.repo = searchRepo());
  const indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
  await indexer.run();
  return indexer;
}

async function openEvents(indexDir: string): Promise<string[]> {
  const events: VectorIndexEvent[] = [];
  (await openIndex(indexDir, { onEvent: (event) => events.push(event) })).close();
  return events.map((event) => event.type);
}

describe('a planted vectors file whose checksum verifies', () => {
  it.each(Object.keys(FIXTURES) as (keyof typeof FIXTURES)[])(
    '%s: FaissIndex.read with untrusted rejects it as damaged, in a child process that survives',
    async (name) => {
      fixture(name);
      const run = await runVictim(['read', join(UNTRUSTED_FIXTURES, name)]);
      expect({ code: run.code, signal: run.signal }).toEqual({ code: 0, signal: null });
      expect(linesOf(run)).toEqual([
        {
          code: 'CORRUPT_INDEX',
          message: expect.stringMatching(/FAISS crashed on it in the process that checks index files \(ended with SIG/),
        },
      ]);
    },
  );

  it.each(Object.keys(FIXTURES) as (keyof typeof FIXTURES)[])(
    '%s, recorded by the database it came with: a search survives and answers lexically, saying why',
    async (name) => {
      const indexer = await indexed();
      plantVectorFile(indexer.indexDir, fixture(name));
      const run = await runVictim(['search', indexer.indexDir]);
      expect({ code: run.code, signal: run.signal }).toEqual({ code: 0, signal: null });
      const [answer] = linesOf(run);
      expect(answer).toMatchObject({ mode: 'lexical', events: expect.arrayContaining(['index-checked', 'fallback']) });
      expect(answer!.fallback).toMatch(/FAISS crashed on it in the process that checks index files/);
      expect(answer!.fallback).toMatch(/run oc-vector-index to embed them again/);
      expect(answer!.names).toContain('hashPassword');
    },
  );

  it('an indexer run there survives and writes a file of its own, which the next search reads in its process', async () => {
    const indexer = await indexed();
    plantVectorFile(indexer.indexDir, fixture('idmap-ntotal.ocvx'));
    const run = await runVictim(['index', indexer.root]);
    expect({ code: run.code, signal: run.signal }).toEqual({ code: 0, signal: null });
    const [summary, answer] = linesOf(run);
    expect(summary).toEqual({ written: true });
    expect(answer).toMatchObject({ mode: 'hybrid', names: expect.arrayContaining(['hashPassword']) });
    expect(answer!.fallback).toBeUndefined();
    expect(answer!.events).not.toContain('index-checked');
  });
});

describe('which files FAISS parses in this process', () => {
  it('the file this index wrote; the same bytes rewritten with the same times, or an older record, are checked first', async () => {
    const indexer = await indexed();
    expect(await openEvents(indexer.indexDir)).toEqual([]);
    const path = recordedVectorFile(indexer.indexDir);
    const searcher = await Searcher.open({ indexDir: indexer.indexDir });
    const before = await searcher.search('hash a password with a salt', { k: 5, snippet: false });
    searcher.close();

    // As cp -p or a tarball leaves it: the same bytes and modification time, in the same inode even.
    const { atime, mtime } = statSync(path);
    writeFileSync(path, readFileSync(path));
    utimesSync(path, atime, mtime);
    expect(await openEvents(indexer.indexDir)).toEqual(['index-checked']);
    const checked = await Searcher.open({ indexDir: indexer.indexDir });
    const after = await checked.search('hash a password with a salt', { k: 5, snippet: false });
    checked.close();
    expect(after.results.map((result) => [result.name, result.score])).toEqual(
      before.results.map((result) => [result.name, result.score]),
    );
    expect(after.fallback).toBeUndefined();

    // The next run writes the file again, recorded as written here.
    expect((await new Indexer({ path: indexer.root, embedder: 'builtin', llm: false }).run()).index.written).toBe(true);
    expect(await openEvents(indexer.indexDir)).toEqual([]);

    // A record in an older version's form (size, modification time, inode; no change time) vouches for nothing.
    const store = IndexStore.open(indexer.indexDir);
    try {
      const current = recordedVectorFile(indexer.indexDir);
      const stat = statSync(current, { bigint: true });
      const name = current.slice(current.lastIndexOf('/') + 1);
      store.transaction(() => {
        store.meta.vectorsFile = `${name} ${fileIdentity(current)} ${stat.size}:${stat.mtimeNs}:${stat.ino}`;
      });
    } finally {
      store.close();
    }
    expect(await openEvents(indexer.indexDir)).toEqual(['index-checked']);
  });
});

describe('writing a vectors file', () => {
  it('never writes through a link planted where its temporary file goes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ocvector-untrusted-'));
    const target = join(dir, 'user-file');
    writeFileSync(target, 'the user file');
    try {
      const path = join(dir, 'vectors-g1.ocvx');
      // The names a writer used to take (process id and a counter): each a link to the user's file.
      for (let counter = 0; counter < 64; counter++) symlinkSync(target, `${path}.tmp-${process.pid}-${counter}`);
      const index = await FaissIndex.create({ dimension: 4 });
      await index.add(randomVectors(10, 4, 3));
      await index.write(path);
      index.close();
      expect(readFileSync(target, 'utf8')).toBe('the user file');
      expect((await FaissIndex.read(path)).ntotal).toBe(10);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

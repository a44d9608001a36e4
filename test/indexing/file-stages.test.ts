/**
 * One record per file through a run's stages (src/indexing/file-stages.ts): the read stage fills
 * the record or settles it, and the store's shape is built from the record in one place
 * (fileWrite). The whole run is tested elsewhere (incremental.test.ts and the store tests).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Analyzer } from '../../src/analysis/analyzer.js';
import { contentHash } from '../../src/files/hash.js';
import type { ScannedFile } from '../../src/files/scan.js';
import { fileWrite, newFileRecord } from '../../src/indexing/file-record.js';
import { addDocuments, readFile } from '../../src/indexing/file-stages.js';
import type { FileAnalyzer } from '../../src/indexing/pool.js';
import { type FileRow, UNTRUSTED_MTIME } from '../../src/store/rows.js';
import { cleanedUpAfterEach, SAMPLE_FILES, tempRepo } from '../helpers/repo.js';

const MAX_BYTES = 1 << 20;
const PATH = 'src/users.ts';

/** Analysis on the calling thread, counting the files it is asked about. */
function countingAnalyzer(): FileAnalyzer & { asked: string[] } {
  const analyzer = new Analyzer();
  const asked: string[] = [];
  return {
    threads: 1,
    asked,
    analyzeBytes: (path, bytes) => {
      asked.push(path);
      return analyzer.analyzeBytes(path, bytes);
    },
    analyzeWithText: (path, bytes) => {
      asked.push(path);
      return analyzer.analyzeWithText(path, bytes);
    },
  };
}

function rowOf(scanned: ScannedFile, hash: string | null, status: FileRow['status'] = 'indexed'): FileRow {
  const { path, size, mtimeMs } = scanned;
  return { id: 7, elementCount: 3, path, language: 'typescript', size, mtimeMs, hash, status, error: null };
}

describe('a file through the stages of a run', () => {
  const owned = cleanedUpAfterEach();

  function scannedFile(path = PATH, mtimeMs?: number): ScannedFile {
    owned.repo ??= tempRepo(SAMPLE_FILES);
    const absolutePath = join(owned.repo.root, path);
    const stat = statSync(absolutePath, { throwIfNoEntry: false });
    return { path, absolutePath, size: stat?.size ?? 10, mtimeMs: mtimeMs ?? stat?.mtimeMs ?? 0 };
  }

  it('read fills a new file with its hash, text, line starts and syntax analysis, and analyse builds its documents', async () => {
    // Modified long before it was read: its mtime vouches for its content.
    const scanned = scannedFile(PATH, Date.now() - 60_000);
    const record = newFileRecord(scanned, undefined);
    await readFile(record, countingAnalyzer(), MAX_BYTES);
    expect(record.change).toBe('added');
    expect(record.hash).toBe(contentHash(Buffer.from(SAMPLE_FILES[PATH]!)));
    expect(record.mtimeMs).toBe(scanned.mtimeMs);
    expect(record.text).toBe(SAMPLE_FILES[PATH]);
    expect(record.code?.elements.map((element) => element.name)).toContain('User');
    expect(record.lineStarts?.range(2, 2).start).toBe(SAMPLE_FILES[PATH]!.indexOf('\n') + 1);
    expect(record.documents).toEqual([]);
    addDocuments(record);
    expect(record.documents.length).toBeGreaterThan(0);
    const write = fileWrite(record);
    expect(write).toMatchObject({ kind: 'write', update: { path: PATH, status: 'indexed', hash: record.hash } });
    expect(write.kind === 'write' && write.text).toBe(SAMPLE_FILES[PATH]);
  });

  it('read settles the content the index holds as unchanged, without analysing it: the store touches its row', async () => {
    // Modified, as the scan saw it, no earlier than it was read: its mtime cannot vouch for it next time.
    const scanned = scannedFile(PATH, Date.now() + 60_000);
    const row = rowOf(scanned, contentHash(Buffer.from(SAMPLE_FILES[PATH]!)));
    const record = newFileRecord(scanned, row);
    const analyzer = countingAnalyzer();
    await readFile(record, analyzer, MAX_BYTES);
    expect(analyzer.asked).toEqual([]);
    expect(record.change).toBe('unchanged');
    expect(record.code).toBeUndefined();
    expect(fileWrite(record)).toEqual({ kind: 'touch', row, size: scanned.size, mtimeMs: UNTRUSTED_MTIME });
  });

  it('read analyses again a file that failed last time, whatever its content', async () => {
    const scanned = scannedFile();
    const record = newFileRecord(scanned, rowOf(scanned, contentHash(Buffer.from(SAMPLE_FILES[PATH]!)), 'failed'));
    const analyzer = countingAnalyzer();
    await readFile(record, analyzer, MAX_BYTES);
    expect(analyzer.asked).toEqual([PATH]);
    expect(record.change).toBe('changed');
  });

  it('read settles a file over the size limit as skipped, unread', async () => {
    const scanned = scannedFile();
    const record = newFileRecord(scanned, undefined);
    const analyzer = countingAnalyzer();
    await readFile(record, analyzer, 16);
    expect(analyzer.asked).toEqual([]);
    expect(record).toMatchObject({ change: 'skipped', hash: null, skipped: { path: PATH, skipped: 'too-large' } });
    expect(record.error).toBe(`too-large: ${scanned.size} bytes, over the limit of 16`);
    expect(fileWrite(record)).toMatchObject({ kind: 'write', update: { status: 'skipped', error: record.error } });
  });

  it('read settles a file it cannot read, or one the analysis fails on, as failed: the store keeps no hash for it', async () => {
    const gone = newFileRecord(scannedFile('src/gone.ts'), undefined);
    await readFile(gone, countingAnalyzer(), MAX_BYTES);
    expect(gone.change).toBe('failed');
    expect(gone.error).toMatch(/^cannot read the file: .*ENOENT/);

    const broken = newFileRecord(scannedFile(), undefined);
    const failing: FileAnalyzer = { threads: 1, analyzeBytes: () => Promise.reject(new Error('parser crashed')) };
    await readFile(broken, failing, MAX_BYTES);
    expect(broken).toMatchObject({ change: 'failed', error: 'analysis failed: parser crashed' });
    expect(broken.hash).not.toBeNull();
    expect(fileWrite(broken)).toMatchObject({
      kind: 'write',
      update: { status: 'failed', hash: null },
      text: undefined,
    });
  });
});

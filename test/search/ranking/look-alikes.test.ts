/**
 * A request's word held only as a look-alike (`atomic` for `atomically`,
 * which the index's stemmer joins) is not the file's evidence for it;
 * a word held as written, or not held in the rows at all, is left to BM25.
 */
import { describe, expect, it } from 'vitest';
import { lookAlikeShareByFile } from '../../../src/search/ranking/look-alikes.js';
import type { CandidateRow } from '../../../src/search/ranking/features.js';

const row = (id: number, fileId: number, name: string, signature = '', description = ''): CandidateRow => ({
  id,
  fileId,
  path: `f${fileId}`,
  type: 'function',
  name,
  startLine: id,
  endLine: id,
  signature,
  description,
});

describe('lookAlikeShareByFile', () => {
  const keywords = ['write', 'index', 'file', 'atomically'];
  const rows = [
    row(1, 1, 'IndexHolder.trained', 'std::atomic<bool> trained{false}'),
    row(2, 1, 'ReadIndexFile', '', 'Reads an index file'),
    row(3, 2, 'FaissIndex.write', 'write(path)', 'Writes the index atomically (temporary file, rename).'),
    row(4, 3, 'RunWriter.write', '', 'Writes a batch of files: all or none of it.'),
    row(5, 4, 'Store.commit', '', 'Commits the atomic batch.'),
    row(6, 4, 'Store.log', '', 'Appends atomically to the log.'),
    // Files that spell the common words, which weigh less for it.
    ...[5, 6, 7, 8].map((file) => row(10 + file, file, 'writeIndexFile', '', 'Writes the index file.')),
  ];
  const shares = lookAlikeShareByFile(keywords, rows);

  it("holds back a file that holds the request's rare word only as a look-alike, by that word's weight", () => {
    const share = shares.get(1)!;
    expect(share).toBeGreaterThan(0);
    // The rare word weighs more than any one of the three common ones.
    expect(share).toBeLessThan(0.75);
  });

  it('leaves alone a file that spells the word as written, even beside a look-alike, and one that holds none', () => {
    expect(shares.has(2)).toBe(false);
    expect(shares.has(3)).toBe(false);
    expect(shares.has(4)).toBe(false);
  });

  it('does not take a plural or an inflection for a look-alike', () => {
    expect(lookAlikeShareByFile(['file', 'write'], [row(1, 1, 'files', '', 'writes files')]).size).toBe(0);
  });

  it("does not take a word the index's stemmer keeps apart for a look-alike", () => {
    // To BM25 (FTS5's porter) `null` is not `nullable`, nor `proc` `procsub`, nor `eval` `evaluate`:
    // a file spelling them lent nothing to the request's word, and loses nothing for it.
    const rows = [
      row(1, 1, 'Parameter.value', 'value: String? = null'),
      row(2, 2, 'runProc', 'proc(command)'),
      row(3, 3, 'eval', 'eval(script)'),
      row(4, 4, 'schemaOf', '', 'Schema of a nullable value class.'),
    ];
    expect(lookAlikeShareByFile(['nullable', 'value', 'class', 'procsub', 'evaluate'], rows).size).toBe(0);
  });
});

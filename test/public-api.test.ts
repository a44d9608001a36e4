/**
 * The public API of `ocvector`: docs/api.md lists it, and test/docs/api.test.ts
 * keeps that page and src/index.ts the same. Here: the rest of its promise.
 * Everything else lives behind `ocvector/internal`, which promises nothing.
 */
import { describe, expect, it } from 'vitest';

describe('the public API', () => {
  it('keeps every public name in ocvector/internal too, beside the layers', async () => {
    const api = await import('../src/index.js');
    const internal = await import('../src/internal.js');
    for (const name of Object.keys(api)) expect(internal).toHaveProperty(name);
    expect(Object.keys(internal).length).toBeGreaterThan(Object.keys(api).length);
  });

  it('gives every error class one base and a code', async () => {
    const {
      OcvectorError,
      FilesError,
      PathOutsideRootError,
      FaissError,
      AnalysisError,
      EmbedderError,
      StoreError,
      SearchError,
    } = await import('../src/index.js');
    const errors = [
      new FilesError('f', 'PATH_NOT_FOUND'),
      new PathOutsideRootError('p'),
      new FaissError('f', 'IO'),
      new AnalysisError('a', 'NOT_CONFIGURED'),
      new EmbedderError('e', 'TIMEOUT'),
      new StoreError('s', 'NOT_FOUND'),
      new SearchError('q', 'BAD_QUERY'),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(OcvectorError);
      expect(error.code).toMatch(/^[A-Z][A-Z_]*$/);
      expect(error.name).toBe(error.constructor.name);
    }
    expect(new PathOutsideRootError('p')).toBeInstanceOf(FilesError);
    expect(new PathOutsideRootError('p').code).toBe('OUTSIDE_ROOT');
  });
});

/**
 * The embedded index as a kind of store (../locations.ts): the one a missing choice opens, kept
 * in a directory (`indexDir`).
 */
import { StoreError } from '../errors.js';
import type { StoreKind } from '../store.js';
import { EmbeddedStore } from './embedded-store.js';

export const embeddedKind: StoreKind = {
  name: 'embedded index',
  namedBy: undefined,
  claims: (choice) => choice === undefined,
  async open(_choice, options) {
    if (!options.indexDir)
      throw new StoreError('no index to open: give the index directory (indexDir), or a store', 'BAD_OPTION');
    return new EmbeddedStore(options.indexDir, { vectorIndex: options.vectorIndex, onEvent: options.onEvent });
  },
};

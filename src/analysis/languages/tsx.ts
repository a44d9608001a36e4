/** TSX: TypeScript with JSX, read by the TypeScript extractor through the TSX grammar. */
import { defineLanguage } from '../language-record.js';
import { JAVASCRIPT_CALLS } from './typescript.js';

export const tsx = defineLanguage({
  name: 'tsx',
  extensions: ['.tsx'],
  analysis: {
    kind: 'code',
    grammar: { package: 'tree-sitter-typescript', export: 'tsx' },
    callTypes: JAVASCRIPT_CALLS,
    extractor: 'typescript',
  },
});

/** JavaScript (and JSX): read by the TypeScript extractor through the JavaScript grammar. */
import { defineLanguage } from '../language-record.js';
import { JAVASCRIPT_CALLS } from './typescript.js';

export const javascript = defineLanguage({
  name: 'javascript',
  extensions: ['.js', '.mjs', '.cjs', '.jsx'],
  interpreters: ['node', 'nodejs', 'deno', 'bun'],
  aliases: ['js', 'jsx', 'node', 'nodejs', 'ecmascript'],
  analysis: {
    kind: 'code',
    grammar: { package: 'tree-sitter-javascript' },
    callTypes: JAVASCRIPT_CALLS,
    extractor: 'typescript',
  },
});

/** Python: read by the extractor of its own (ast/python.ts: decorators, docstrings, properties). */
import { defineLanguage } from '../language-record.js';

export const python = defineLanguage({
  name: 'python',
  extensions: ['.py', '.pyi', '.pyw'],
  fileNames: ['SConstruct', 'SConscript'],
  interpreters: ['python', 'pypy'],
  aliases: ['py', 'python3'],
  analysis: {
    kind: 'code',
    grammar: { package: 'tree-sitter-python' },
    callTypes: ['call'],
    extractor: 'python',
  },
});

/** Markdown: read as text, one element per section under each heading (text.ts). */
import { defineLanguage } from '../language-record.js';

export const markdown = defineLanguage({
  name: 'markdown',
  extensions: ['.md', '.markdown', '.mdx'],
  aliases: ['md'],
  analysis: { kind: 'markdown' },
});

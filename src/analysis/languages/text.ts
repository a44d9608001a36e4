/** Any file no other record claims: read in overlapping windows of lines (text.ts). */
import { defineLanguage } from '../language-record.js';

export const text = defineLanguage({
  name: 'text',
  extensions: [],
  aliases: ['txt'],
  analysis: { kind: 'text' },
});

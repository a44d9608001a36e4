/** JSON (and JSON with comments): read as one document, its top-level keys as properties. */
import { defineLanguage } from '../language-record.js';

export const json = defineLanguage({
  name: 'json',
  extensions: ['.json', '.jsonc'],
  analysis: { kind: 'config', keys: objectKeys },
});

function objectKeys(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return Object.keys(value);
  } catch {
    // JSON with comments, or broken: the document is indexed without keys.
  }
  return [];
}

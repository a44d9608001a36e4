/** TOML: read as one document; its top-level keys and tables as properties. */
import { defineLanguage } from '../language-record.js';

export const toml = defineLanguage({
  name: 'toml',
  extensions: ['.toml'],
  fileNames: ['Pipfile', 'Cargo.lock'],
  analysis: { kind: 'config', keys: tablesAndKeys },
});

/** Keys before the first [table] are top-level; after it, only tables are. */
function tablesAndKeys(text: string): string[] {
  const keys: string[] = [];
  let inTable = false;
  for (const line of text.split('\n')) {
    const table = /^\[+([^\]]+)\]+/.exec(line);
    if (table) {
      inTable = true;
      keys.push(table[1]!.trim());
    } else if (!inTable) keys.push(...(/^([A-Za-z0-9_.-]+)\s*=/.exec(line)?.slice(1) ?? []));
  }
  return keys;
}

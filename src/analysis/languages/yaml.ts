/** YAML: read as one document; the keys at the start of a line as properties. */
import { defineLanguage } from '../language-record.js';

export const yaml = defineLanguage({
  name: 'yaml',
  extensions: ['.yaml', '.yml'],
  aliases: ['yml'],
  analysis: { kind: 'config', keys: topLevelKeys },
});

function topLevelKeys(text: string): string[] {
  return text.split('\n').flatMap((line) => /^([A-Za-z0-9_.-]+)\s*:/.exec(line)?.slice(1) ?? []);
}

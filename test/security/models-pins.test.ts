/**
 * `npm run models` (scripts/models.sh) fetches only what it pins by hash (issue 54): each pip
 * call checks hashes, and none lets pip fetch and run an unpinned build backend for an sdist.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const script = readFileSync(new URL('../../scripts/models.sh', import.meta.url), 'utf8');

/** The commands that fetch with pip (python3 -m pip, or the script's pip run in its venv), continuation lines joined. */
function pipCommands(): string[] {
  return script
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => /^\s*(python3 -m pip|"\$\{pip_in_venv\[@\]\}") (install|download)\b/.test(line));
}

/** The `name==version sha256` lines of a pin list such as PIP_PINS='…'. */
function pins(name: string): string[] {
  const block = script.match(new RegExp(`^${name}='\\n([^']*)'`, 'm'))?.[1];
  return (block ?? '').split('\n').filter(Boolean);
}

describe('scripts/models.sh', () => {
  it('pins every package it fetches from PyPI, the build backend included, by version and sha256', () => {
    const all = [...pins('PIP_PINS'), ...pins('BUILD_PINS')];
    expect(pins('BUILD_PINS').map((pin) => pin.split('==')[0])).toEqual(['setuptools', 'wheel']);
    for (const pin of all) expect(pin).toMatch(/^[a-z0-9][a-z0-9._-]*==[\w.]+ [0-9a-f]{64}$/);
  });

  it('runs pip only with hashes required, wheels only but for the one sdist, built without fetching anything', () => {
    const commands = pipCommands();
    expect(commands).toHaveLength(2);
    for (const command of commands) {
      expect(command).toContain('--require-hashes');
      expect(command).toContain('--no-deps');
      expect(command).toContain('--only-binary :all:');
    }
    const download = commands.find((command) => command.includes(' download '))!;
    expect(download).toContain('--no-build-isolation');
    expect(download.match(/--no-binary (\S+)/)?.[1]).toBe('miniaudio');
  });
});

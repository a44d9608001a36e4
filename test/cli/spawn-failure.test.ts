/**
 * The set-up scripts name why a command they spawned failed: a missing
 * command said "failed (exit null)" before.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { spawnFailure } from '../../scripts/spawn-failure.mjs';

describe('a spawned command that failed', () => {
  it('is named as not found when it does not exist', () => {
    const result = spawnSync('ocvector-no-such-command', ['configure']);
    expect(spawnFailure('node-gyp configure', result)).toBe('node-gyp configure: the command was not found');
  });

  it('gives its exit code, or the signal that ended it', () => {
    const exited = spawnSync(process.execPath, ['-e', 'process.exit(3)']);
    expect(spawnFailure('node-gyp build', exited)).toBe('node-gyp build failed (exit 3)');
    const killed = spawnSync(process.execPath, ['-e', 'process.kill(process.pid, "SIGTERM")']);
    expect(spawnFailure('node-gyp build', killed)).toBe('node-gyp build was ended by SIGTERM');
  });
});

// Why a command spawned by a set-up script failed, in words: the exit code,
// the signal that ended it, or that it could not be started at all (then
// spawnSync reports neither a code nor a signal, only an error).

/**
 * @param {string} command what was run, as the message names it
 * @param {{ status: number | null, signal: string | null, error?: Error & { code?: string } }} result spawnSync's
 * @returns {string}
 */
export function spawnFailure(command, result) {
  if (result.error?.code === 'ENOENT') return `${command}: the command was not found`;
  if (result.error) return `${command} could not be started: ${result.error.message}`;
  if (result.signal) return `${command} was ended by ${result.signal}`;
  return `${command} failed (exit ${result.status})`;
}

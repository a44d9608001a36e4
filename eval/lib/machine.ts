/** One line naming the machine a figure was measured on. */
import { cpus, totalmem } from 'node:os';

export function describeMachine(): string {
  const cpu = cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
  return `${cpus().length} cores (${cpu}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
}

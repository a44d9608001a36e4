/**
 * At most `size` calls at a time; the others wait their turn, in order. A call's deadline then
 * starts when it is sent, not while it waits: a CPU Ollama answers one chat at a time, and the
 * indexer's files in flight, all sent at once, timed out queued behind each other (8 timeouts in
 * the first 2 minutes with Qwen2.5-Coder-0.5B on 2 cores, then the circuit opened: docs/models.md).
 */
export class CallSlots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#free = Math.max(1, Math.floor(size) || 1);
  }

  async run<T>(call: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await call();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}

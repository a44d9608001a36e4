/**
 * Stops calling a failing server: after `threshold` failures in a row every
 * call is refused at once, so one dead server costs a few timeouts, not one
 * per file. With `retryAfterMs` the circuit lets one call through again
 * once that long has passed (a long-lived searcher tries its embedder
 * again); without it, it stays open for the rest of a run.
 */
export class CircuitBreaker {
  #failures = 0;
  #openedAt: number | undefined;

  constructor(
    private readonly threshold = 3,
    private readonly retryAfterMs = Number.POSITIVE_INFINITY,
    private readonly now: () => number = Date.now,
  ) {}

  get isOpen(): boolean {
    return this.#openedAt !== undefined && this.now() - this.#openedAt < this.retryAfterMs;
  }

  get failures(): number {
    return this.#failures;
  }

  succeeded(): void {
    this.#failures = 0;
    this.#openedAt = undefined;
  }

  /** Opens the circuit now, whatever the count (a failure no retry can mend); true when it was closed. */
  trip(): boolean {
    const wasOpen = this.isOpen;
    this.#failures = Math.max(this.#failures + 1, this.threshold);
    this.#openedAt = this.now();
    return !wasOpen;
  }

  /** Records a failure; true when this one opened the circuit (again, after a retry). */
  failed(): boolean {
    this.#failures++;
    if (this.isOpen || this.#failures < this.threshold) return false;
    this.#openedAt = this.now();
    return true;
  }
}

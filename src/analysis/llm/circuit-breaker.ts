/**
 * Stops calling a failing model server for the rest of a run: after
 * `threshold` failures in a row every call is refused at once, so one dead
 * server costs a few timeouts, not one per file.
 */
export class CircuitBreaker {
  #failures = 0;
  #open = false;

  constructor(private readonly threshold = 3) {}

  get isOpen(): boolean {
    return this.#open;
  }

  get failures(): number {
    return this.#failures;
  }

  succeeded(): void {
    this.#failures = 0;
  }

  /** Records a failure; true when this one opened the circuit. */
  failed(): boolean {
    this.#failures++;
    if (this.#open || this.#failures < this.threshold) return false;
    this.#open = true;
    return true;
  }
}

/** The circuit breaker of the model clients and of the searcher's query embedder. */
import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../src/models/circuit-breaker.js';

describe('CircuitBreaker', () => {
  it('opens after the threshold of failures in a row, and stays open for the run', () => {
    const breaker = new CircuitBreaker(3);
    expect([breaker.failed(), breaker.failed()]).toEqual([false, false]);
    breaker.succeeded();
    expect([breaker.failed(), breaker.failed(), breaker.isOpen]).toEqual([false, false, false]);
    expect(breaker.failed()).toBe(true);
    expect(breaker.isOpen).toBe(true);
    expect(breaker.failed()).toBe(false); // open already
  });

  it('with retryAfterMs, lets a call through again once that long has passed', () => {
    let now = 0;
    const breaker = new CircuitBreaker(1, 30_000, () => now);
    expect(breaker.failed()).toBe(true);
    now = 29_999;
    expect(breaker.isOpen).toBe(true);
    now = 30_000;
    expect(breaker.isOpen).toBe(false);
    expect(breaker.failed()).toBe(true); // the retry failed: open again
    now = 45_000;
    expect(breaker.isOpen).toBe(true);
    breaker.succeeded();
    expect(breaker.isOpen).toBe(false);
  });
});

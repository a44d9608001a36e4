/**
 * Terminal output for the CLIs: colours only on a terminal (NO_COLOR and
 * FORCE_COLOR respected), a progress bar that redraws one line on a TTY
 * and prints a plain line now and then when it is not one.
 */

export interface Style {
  enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  path(text: string): string;
  line(text: string): string;
  accent(text: string): string;
  warn(text: string): string;
  error(text: string): string;
}

export function colorEnabled(stream: NodeJS.WriteStream): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false;
  if (process.env.FORCE_COLOR !== undefined) return process.env.FORCE_COLOR !== '0';
  return Boolean(stream.isTTY) && process.env.TERM !== 'dumb';
}

export function makeStyle(enabled: boolean): Style {
  const wrap = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    path: wrap(35, 39),
    line: wrap(32, 39),
    accent: wrap(36, 39),
    warn: wrap(33, 39),
    error: wrap(31, 39),
  };
}

export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1_000)} s`;
}

/** `1,024`. Whole numbers are grouped by hand: the first toLocaleString loads ICU's locale data, a cost every report would pay (docs/performance.md). */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** `1 request`, `2 requests`, `1,024 requests`. */
export function plural(n: number, word: string): string {
  return `${formatCount(n)} ${n === 1 ? word : `${word}s`}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * Progress over a known number of items: rate and ETA. On a TTY one line is
 * redrawn at most ten times a second; elsewhere a plain line is printed at
 * the first update, then every 5 seconds and at the end, so logs stay
 * readable. Updates that change nothing are how a caller shows that a slow
 * item is still under way (IndexReporter calls every second).
 */
export class ProgressBar {
  readonly #stream: NodeJS.WriteStream;
  readonly #tty: boolean;
  readonly #label: string;
  #started: number | undefined;
  #lastDraw: number | undefined;
  #drawn = false;

  constructor(stream: NodeJS.WriteStream, label: string) {
    this.#stream = stream;
    this.#tty = Boolean(stream.isTTY);
    this.#label = label;
  }

  /**
   * `etaMs`: the time left as the caller measures it (a model's pace) instead of from the items'
   * rate, or null where the caller knows of none yet.
   */
  update(done: number, total: number, detail = '', etaMs?: number | null): void {
    const now = performance.now();
    this.#started ??= now;
    const elapsed = (now - this.#started) / 1000;
    const rate = elapsed > 0 ? done / elapsed : 0;
    // No rate or ETA before the first item is done: "0.0/s" says nothing.
    const eta = etaMs !== undefined ? etaMs : rate > 0 ? ((total - done) / rate) * 1000 : null;
    const percent = total > 0 ? Math.floor((done / total) * 100) : 100;
    const rateText = rate > 0 ? `  ${rate.toFixed(rate < 10 ? 1 : 0)}/s` : '';
    const etaText = eta === null ? '' : `  ETA ${formatDuration(eta)}`;
    const stats = `${done}/${total} ${this.#label}${rateText}${etaText}`;
    if (this.#tty) {
      if (this.#lastDraw !== undefined && now - this.#lastDraw < 100 && done < total) return;
      this.#lastDraw = now;
      const width = 24;
      const filled = Math.round((percent / 100) * width);
      const columns = this.#stream.columns ?? 80;
      let line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent}% ${stats}`;
      if (detail) line += `  ${detail}`;
      this.#stream.write(`\r\u001b[K${line.slice(0, columns - 1)}`);
      this.#drawn = true;
    } else {
      if (this.#lastDraw !== undefined && now - this.#lastDraw < 5_000 && done < total) return;
      this.#lastDraw = now;
      this.#stream.write(`${percent}% ${stats}${detail ? `  ${detail}` : ''}\n`);
    }
  }

  /** Clears the bar's line (TTY) so that what follows starts clean. */
  done(): void {
    if (this.#tty && this.#drawn) this.#stream.write('\r\u001b[K');
    this.#drawn = false;
  }
}

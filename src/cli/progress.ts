/** Where a progress bar writes: stderr in commands, so stdout stays the command's result. */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(chunk: string): unknown;
}

export interface ProgressOptions {
  label: string;
  /** false under --json; the bar is drawn only when this is true and the stream is a terminal */
  enabled?: boolean;
  stream?: ProgressStream;
}

/**
 * A one-line progress bar redrawn in place with a carriage return (no escape sequences, so NO_COLOR terminals
 * show it too). Draws nothing on a pipe or when disabled, so scripts and --json output stay clean.
 */
export class ProgressBar {
  private done = 0;
  private readonly stream: ProgressStream;
  readonly active: boolean;
  private lastLength = 0;

  constructor(
    private readonly total: number,
    private readonly options: ProgressOptions,
  ) {
    this.stream = options.stream ?? process.stderr;
    this.active = options.enabled !== false && Boolean(this.stream.isTTY) && total > 0;
    this.draw();
  }

  tick(step = 1): void {
    this.done = Math.min(this.total, this.done + step);
    this.draw();
  }

  /** Ends the line (the last state stays visible). */
  stop(): void {
    if (this.active) this.stream.write('\n');
  }

  /** The bar's text for a state, e.g. `Replaying [##########----------] 5/10 50%`. */
  static render(label: string, done: number, total: number, width = 20): string {
    const ratio = total > 0 ? done / total : 1;
    const filled = Math.round(ratio * width);
    return `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${Math.floor(ratio * 100)}%`;
  }

  private draw(): void {
    if (!this.active) return;
    const columns = this.stream.columns ?? 80;
    const width = Math.max(10, Math.min(40, columns - this.options.label.length - 20));
    const line = ProgressBar.render(this.options.label, this.done, this.total, width);
    const pad = this.lastLength > line.length ? ' '.repeat(this.lastLength - line.length) : '';
    this.lastLength = line.length;
    this.stream.write(`\r${line}${pad}`);
  }
}

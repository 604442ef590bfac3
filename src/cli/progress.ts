import type { Page } from '../db/scoped';
import { InternalError } from '../domain/errors';

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

/** The page a list command asks its service for. */
export interface PageRequest {
  limit: number;
  cursor?: string;
}

export interface FollowPagesOptions {
  /** --all: every page from `cursor` on; else the one page of `limit` records at `cursor` */
  all: boolean;
  /** --limit */
  limit: number;
  /** --limit was given on the command line: --all then asks for pages of that size instead of ALL_PAGE_SIZE */
  limitGiven?: boolean;
  /** --cursor: where the first page starts */
  cursor?: string;
  /** the progress bar's label */
  label?: string;
  /** false under --json; the bar is drawn only when this is true and the stream is a terminal */
  progress?: boolean;
  stream?: ProgressStream;
}

/** The page size of --all: the largest a list accepts. */
export const ALL_PAGE_SIZE = 100;

/**
 * A list command's page (`--limit`, `--cursor`), or with --all every page from `--cursor` on, following nextCursor
 * until it is null, as one page: every record in the list's order, `nextCursor`/`prevCursor` null, `hasMore` false
 * and the first page's `totalCount` (so `N of total` stays true). A progress bar on `stream` (stderr) counts the
 * records against that total, on a terminal only. A cursor answered twice would loop: it stops with an error.
 */
export async function followPages<T>(load: (page: PageRequest) => Promise<Page<T>>, options: FollowPagesOptions): Promise<Page<T>> {
  if (!options.all) return load({ limit: options.limit, cursor: options.cursor });
  const limit = options.limitGiven ? options.limit : ALL_PAGE_SIZE;
  const seen = new Set<string>(options.cursor === undefined ? [] : [options.cursor]);
  const first = await load({ limit, cursor: options.cursor });
  const data = [...first.data];
  const totalCount = first.pagination.totalCount;
  const bar = new ProgressBar(totalCount, {
    label: options.label ?? 'Fetching',
    enabled: options.progress !== false,
    stream: options.stream,
  });
  bar.tick(first.data.length);
  try {
    let cursor = first.pagination.nextCursor;
    while (cursor) {
      if (seen.has(cursor)) {
        throw new InternalError(`The list answered the cursor ${cursor} twice: stopped instead of looping.`, 'PAGINATION_LOOP');
      }
      seen.add(cursor);
      const page = await load({ limit, cursor });
      data.push(...page.data);
      bar.tick(page.data.length);
      cursor = page.pagination.nextCursor;
    }
  } finally {
    bar.stop();
  }
  return { data, pagination: { nextCursor: null, prevCursor: null, hasMore: false, totalCount } };
}

import chalk from 'chalk';
import type Table from 'cli-table3';
import type { Page } from '../db/scoped';

/** Colour only on a terminal and never under NO_COLOR (https://no-color.org). */
export function colourEnabled(): boolean {
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true;
  return !('NO_COLOR' in process.env) && Boolean(process.stdout.isTTY);
}

export function configureColour(): void {
  if (!colourEnabled()) chalk.level = 0;
}

export interface Column<T> {
  header: string;
  get(row: T): unknown;
}

/** A table of rows; cli-table3's own colours are emptied so a pipe gets plain text. */
export function renderTable<T>(rows: T[], columns: Column<T>[]): string {
  const colour = colourEnabled();
  // cli-table3 is loaded by the first table printed (serve prints none)
  const table = new (require('cli-table3') as typeof Table)({
    head: columns.map((c) => (colour ? chalk.bold(c.header) : c.header)),
    style: { head: [], border: [] },
  });
  for (const row of rows) table.push(columns.map((c) => formatCell(c.get(row))));
  return table.toString();
}

/** Key/value lines of one record. */
export function renderRecord(record: Record<string, unknown>): string {
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  return Object.entries(record)
    .map(([k, v]) => `${(colourEnabled() ? chalk.dim(k.padEnd(width)) : k.padEnd(width))}  ${formatCell(v)}`)
    .join('\n');
}

function formatCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function statusColour(status: string): string {
  if (!colourEnabled()) return status;
  if (status === 'active') return chalk.green(status);
  if (status === 'revoked' || status === 'disabled') return chalk.red(status);
  return chalk.yellow(status);
}

export { chalk };

/** The line under a listed page: how many of how many, and the cursor of the next page. */
export function pageFooter(page: Page<unknown>): string {
  return `${page.data.length} of ${page.pagination.totalCount}${page.pagination.nextCursor ? ` (next: --cursor ${page.pagination.nextCursor})` : ''}`;
}

import fs from 'node:fs';
import { Flags } from '@oclif/core';
import { ValidationError } from '../domain/errors';

/** Flags shared by many commands, named the same everywhere. */
export const sharedFlags = {
  tenant: Flags.string({ description: 'Tenant id', required: true }),
  merchant: Flags.string({ description: 'Merchant id' }),
  live: Flags.boolean({ description: 'Act in live mode (default: sandbox/test mode)', default: false }),
  limit: Flags.integer({ description: 'Page size (1-100)', default: 20, min: 1, max: 100 }),
  cursor: Flags.string({ description: 'Cursor from a previous page (nextCursor)' }),
  all: Flags.boolean({
    description:
      'Fetch every page from --cursor (or the first) on, following the cursors: 100 records a request, or --limit when given; a progress bar on a terminal',
    default: false,
  }),
  yes: Flags.boolean({ char: 'y', description: 'Confirm without a prompt', default: false }),
};

/**
 * The flags of every command that prints a table of rows (src/cli/output.ts renderTable): which columns, whole
 * cells, or CSV. Nothing changes under --json.
 */
export const tableFlags = {
  columns: Flags.string({
    description:
      'Only these columns, in this order: a comma-separated list of header names (any case, kebab-case or camelCase), e.g. id,status',
    helpGroup: 'TABLE',
  }),
  'no-truncate': Flags.boolean({
    description:
      'Show every column, each cell whole (on a terminal, columns of less value are otherwise hidden and text cut with … to fit its width; ids, statuses and event types never are; a pipe always gets everything whole)',
    default: false,
    helpGroup: 'TABLE',
  }),
  csv: Flags.boolean({
    description: 'Print the rows as CSV (RFC 4180, a header row, no colour) instead of a table; other lines go to stderr',
    default: false,
    helpGroup: 'TABLE',
  }),
};

/** --tenant and the page of a list a platform operator may narrow to one tenant. */
export const listFlags = {
  tenant: Flags.string({ description: "Only this tenant's records" }),
  limit: sharedFlags.limit,
  cursor: sharedFlags.cursor,
};

/** --tenant of a record created for a tenant by the platform's operator. */
export const createTenantFlag = { tenant: Flags.string({ description: 'Tenant id the record belongs to', required: true }) };

/** --metadata key=value (repeatable) as a string map. */
export function parseMetadata(entries: string[] | undefined): Record<string, string> | undefined {
  if (!entries) return undefined;
  const out: Record<string, string> = {};
  for (const entry of entries) {
    const at = entry.indexOf('=');
    if (at <= 0) throw ValidationError.field('--metadata', `"${entry}" must look like key=value`);
    out[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return out;
}

/** "null" (or "") on the command line clears a nullable field. */
export const nullable = (value: string | undefined): string | null | undefined =>
  value === undefined ? undefined : value === '' || value === 'null' ? null : value;

/** A comma-separated list flag as its trimmed, non-empty items. */
export const csv = (value: string | undefined): string[] | undefined =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);

/** Inline JSON (starting with { or [) or the path of a JSON file; 400 naming the flag when it cannot be read. */
export function readJsonFlag(value: string, flag: string): unknown {
  const trimmed = value.trim();
  try {
    return JSON.parse(trimmed.startsWith('{') || trimmed.startsWith('[') ? trimmed : fs.readFileSync(value, 'utf8'));
  } catch (error) {
    throw ValidationError.field(`--${flag}`, `is neither inline JSON nor a readable JSON file: ${(error as Error).message}`);
  }
}

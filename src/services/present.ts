/** Shared helpers for turning rows into the specification's records. */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** Rows of a page mapped to records, pagination untouched. */
export function mapPage<R, T, P>(page: { data: R[]; pagination: P }, fn: (row: R) => T): { data: T[]; pagination: P } {
  return { data: page.data.map(fn), pagination: page.pagination };
}

/** A row as the API shows it: every Date an ISO 8601 string. */
export type Presented<T> = {
  [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K];
};

/**
 * The row with its dates as ISO strings. Only for tables whose every column is public; a table with secrets
 * (API keys) lists its public fields one by one instead.
 */
export function presentRow<T extends object>(row: T): Presented<T> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v])) as Presented<T>;
}

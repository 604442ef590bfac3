/** Shared helpers for turning rows into the specification's records. */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** Rows of a page mapped to records, pagination untouched. */
export function mapPage<R, T, P>(page: { data: R[]; pagination: P }, fn: (row: R) => T): { data: T[]; pagination: P } {
  return { data: page.data.map(fn), pagination: page.pagination };
}

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

/** The listed fields of a row, dates as ISO strings. */
export function presentRow<T extends object, K extends keyof T>(row: T, fields: readonly K[]): Presented<Pick<T, K>> {
  return Object.fromEntries(fields.map((k) => [k, row[k] instanceof Date ? (row[k] as Date).toISOString() : row[k]])) as Presented<
    Pick<T, K>
  >;
}

/** The where of a list: the filters among `keys` that are set (empty ones filter nothing). */
export function filterWhere<F extends object>(filters: F, keys: readonly (keyof F & string)[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => filters[key]).map((key) => [key, filters[key]]));
}

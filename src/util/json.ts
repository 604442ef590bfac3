/** A JSON column's value: Postgres JSON columns answer the parsed value, SQLite may answer the text. */
export function parseJson<T>(value: T | string): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

// The one CSV writer: the CLI's --csv tables (src/cli/output.ts) and the settlement statements' download
// (src/services/settlements/csv.ts). RFC 4180: records end in CRLF, a field holding a comma, a quote or a line break is
// quoted with its quotes doubled. A field a spreadsheet would read as a formula (one beginning with =, +, -, @, a tab
// or a carriage return, e.g. a merchant's reference `=HYPERLINK(…)`) is neutralised by a leading apostrophe, the
// OWASP rule: the spreadsheet shows the text, never evaluates it. A plain decimal number (`-12.34`) is left as it is,
// so amounts stay numbers.

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/** A field as a spreadsheet must show it: a would-be formula prefixed with an apostrophe. */
export function neutralise(value: string): string {
  return FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
}

/** One RFC 4180 field: neutralised, then quoted (its quotes doubled) when it holds a comma, a quote or a line break. */
export function csvField(value: string | number | null | undefined): string {
  const text = neutralise(value === null || value === undefined ? '' : String(value));
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Records (the first one the header) as RFC 4180 CSV: each record ends in CRLF. */
export function toCsv(records: Array<Array<string | number | null | undefined>>): string {
  return records.map((fields) => `${fields.map(csvField).join(',')}\r\n`).join('');
}

/**
 * The byte order mark a file for spreadsheets starts with: without it, Excel reads a UTF-8 file in the system's
 * legacy code page and garbles every non-ASCII character (a merchant's name, a customer's reference).
 */
export const UTF8_BOM = '\ufeff';

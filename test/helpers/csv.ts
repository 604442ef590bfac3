/**
 * RFC 4180, read strictly: fields separated by commas, quoted fields may hold commas, doubled quotes and line breaks;
 * a quote inside an unquoted field or an unterminated quoted field is an error. Records end at CRLF; with
 * `{ anyLineEnd: true }` also at a bare LF or CR (the CLI's tables end their last line as a terminal prints it).
 */
export function parseCsv(text: string, options: { anyLineEnd?: boolean } = {}): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') {
      if (field !== '') throw new Error(`a quote inside an unquoted field at ${i}`);
      quoted = true;
    } else if (ch === ',') {
      record.push(field);
      field = '';
    } else if ((ch === '\r' && text[i + 1] === '\n') || (options.anyLineEnd && (ch === '\n' || ch === '\r'))) {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += ch;
  }
  if (quoted) throw new Error('an unterminated quoted field');
  if (field !== '' || record.length) {
    record.push(field);
    records.push(record);
  }
  return records;
}

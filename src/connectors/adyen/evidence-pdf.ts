/**
 * The dispute's evidence as Adyen takes a defence document (PDF, JPG or TIFF): a one-page PDF of its fields as text
 * lines (Helvetica, WinAnsi; characters outside printable ASCII shown as `?`, long lines wrapped).
 */

const WIDTH = 95; // characters per line at 10pt on an A4 page with margins
const LINES_PER_PAGE = 70;

function escapePdf(text: string): string {
  return text
    .replace(/[^\x20-\x7e]/g, '?')
    .replace(/\\/g, '\\\\')
    .replace(/\(/g, '\\(')
    .replace(/\)/g, '\\)');
}

function wrap(line: string): string[] {
  const out: string[] = [];
  let rest = line;
  while (rest.length > WIDTH) {
    const cut = rest.lastIndexOf(' ', WIDTH) > 0 ? rest.lastIndexOf(' ', WIDTH) : WIDTH;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut).trimStart();
  }
  out.push(rest);
  return out;
}

/** A PDF (bytes) of text lines, paged. */
export function textPdf(lines: string[]): Buffer {
  const wrapped = lines.flatMap((l) => l.split(/\r?\n/)).flatMap(wrap);
  const pages: string[][] = [];
  for (let i = 0; i < Math.max(wrapped.length, 1); i += LINES_PER_PAGE) pages.push(wrapped.slice(i, i + LINES_PER_PAGE));
  // objects: 1 catalog, 2 pages, 3 font, then per page: page, contents
  const objects: string[] = [];
  const pageIds = pages.map((_, i) => 4 + i * 2);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  pages.forEach((page, i) => {
    const stream = `BT /F1 10 Tf 12 TL 50 800 Td ${page.map((l) => `(${escapePdf(l)}) Tj T*`).join(' ')} ET`;
    objects[pageIds[i]!] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageIds[i]! + 1} 0 R >>`;
    objects[pageIds[i]! + 1] = `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`;
  });
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(body, 'latin1');
    body += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) body += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

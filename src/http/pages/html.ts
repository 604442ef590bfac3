import type { Response } from 'express';
import { formatMinor, type Money } from '../../domain/money';

/** The HTML pages' shared pieces: escaping, money, and the document shell (no script anywhere; styles inline). */

/**
 * The one money format of the pages (checkout and 3DS): `€25.00`, `$1,000,000.00`, `¥1,500`, `KWD 1.234`: the
 * currency's symbol and its own number of decimals, in a fixed locale (en) whatever the session's locale, so that
 * an amount reads the same on every page the customer passes through.
 */
export function pageMoney(money: Money): string {
  return formatMinor(money, { locale: 'en' });
}

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Only http(s) URLs or a path on this server: never javascript: or another scheme. */
export function safeUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  if (url.startsWith('/') && !url.startsWith('//')) return url;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.toString() : null;
  } catch {
    return null;
  }
}

const BASE_CSS = `
  body { font-family: system-ui, sans-serif; background: #f4f5f7; margin: 0; color: #1f2430; }
  main { margin: 0 auto; background: #fff; border-radius: 8px; padding: 2rem; box-shadow: 0 1px 4px rgba(0,0,0,.1); }
  h1 { font-size: 1.25rem; }
  .muted { color: #6b7280; font-size: .875rem; }
  button { border: 0; border-radius: 6px; font-size: 1rem; cursor: pointer; background: #2f5bea; color: #fff; }`;

/** A whole page: the shared look plus the page's own styles, the body inside <main>. */
export function htmlDocument(page: { title: string; body: string; css: string; lang?: string }): string {
  return `<!doctype html>
<html lang="${escapeHtml(page.lang ?? 'en')}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<link rel="icon" href="data:,">
<style>${BASE_CSS}
${page.css}
</style>
</head>
<body><main>
${page.body}
</main></body>
</html>`;
}

/** How a page may be shown: framed by this server's pages only (the sandbox's 3DS page) or never; what images it may load. */
export interface PageOptions {
  frameAncestors?: "'none'" | "'self'";
  /** the img-src source list (default: the inline favicon only) */
  imgSrc?: string;
  /** a Refresh header (the checkout's status view refreshes itself: no script anywhere) */
  refreshSeconds?: number;
  location?: string;
}

/**
 * Sends a page with the headers every page carries: never cached, no referrer sent onwards (a page's URL may hold a
 * key or a token), no script at all, inline styles only, and not framed elsewhere.
 */
export function sendPage(res: Response, status: number, html: string, options: PageOptions = {}): void {
  const frameAncestors = options.frameAncestors ?? "'none'";
  res.status(status).set({
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': frameAncestors === "'none'" ? 'DENY' : 'SAMEORIGIN',
    'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; img-src ${options.imgSrc ?? 'data:'}; base-uri 'none'; frame-ancestors ${frameAncestors}`,
  });
  if (options.refreshSeconds !== undefined) res.set('Refresh', String(options.refreshSeconds));
  if (options.location) res.location(options.location);
  res.send(html);
}

/** A small page of one message (the 3DS pages): its title as heading, its body, a narrow column; `css` adds to it. */
export function messagePage(title: string, body: string, css = ''): string {
  return htmlDocument({
    title,
    body: `<h1>${escapeHtml(title)}</h1>\n${body}`,
    css: `
  body { padding: 3rem 1rem; }
  main { max-width: 24rem; }
  h1 { margin-top: 0; }${css}`,
  });
}

/** Where `payplane serve` listens unless told otherwise (HOST 127.0.0.1, PORT 4242). */
const DEFAULT_LISTEN_URL = 'http://127.0.0.1:4242';

/** What a public URL is built from: the configuration, and the origin of the request being answered if any. */
export interface PublicUrlSource {
  /** PAYPLANE_PUBLIC_URL and the address serve listens at (AppConfig's fields of the same names) */
  config: { publicBaseUrl?: string; listenUrl?: string };
  /** scheme://host[:port] the request came to; none in a job or a CLI command */
  origin?: string;
}

/**
 * The base of every URL the API hands out (hosted checkout pages, 3DS challenge pages, …), without a trailing slash:
 * PAYPLANE_PUBLIC_URL when set; else the origin of the request being answered; else (a job, a CLI command) the
 * address serve listens at. Set PAYPLANE_PUBLIC_URL wherever customers reach serve through another address: then
 * every URL, whether made in a request or in a job, has that one base.
 */
export function publicBase(source: PublicUrlSource): string {
  return (source.config.publicBaseUrl ?? source.origin ?? source.config.listenUrl ?? DEFAULT_LISTEN_URL).replace(/\/+$/, '');
}

/** The absolute URL of a path of this server (`/checkout/…`): the one way a URL handed out is made. */
export function publicUrl(source: PublicUrlSource, path: string): string {
  if (!path.startsWith('/')) throw new Error(`a public URL is made of a path that starts with / (got ${path})`);
  return `${publicBase(source)}${path}`;
}

/** http://host:port of a listening address (an unspecified host, 0.0.0.0 or ::, is shown as localhost). */
export function listenUrlOf(host: string, port: number | string): string {
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

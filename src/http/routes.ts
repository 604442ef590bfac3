import type { Operation } from '../api/registry';

/**
 * The route table of the /v1 operations: which declared operation a method and path name, found in one lookup
 * instead of a walk through every route (Express tries its routes one after the other: about 200 regular
 * expressions for an operation declared late). It keeps Express's matching rules: paths match without regard to
 * case, one trailing slash is allowed, a parameter is one non-empty segment, decoded as a URI component (a
 * malformed one is a 400), HEAD is answered by the GET operation, and an operation whose literal segments come
 * before another's parameters wins (/v1/api-keys/grantable-permissions over /v1/api-keys/{id}).
 */

interface Route {
  op: Operation;
  /** per segment: the literal (lower case), or null for a parameter */
  segments: Array<string | null>;
  /** the parameter names, in the order of their segments */
  names: string[];
}

const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface RouteMatch {
  op: Operation;
  params: Record<string, string>;
}

/** Literal segments before parameters, so /v1/api-keys/grantable-permissions wins over /v1/api-keys/{id}. */
function bySpecificity(a: Route, b: Route): number {
  for (let i = 0; i < Math.min(a.segments.length, b.segments.length); i++) {
    const pa = a.segments[i] === null;
    const pb = b.segments[i] === null;
    if (pa !== pb) return pa ? 1 : -1;
  }
  return 0;
}

/** The segments of a request path (its one trailing slash dropped), or null when it cannot name an operation. */
function segmentsOf(path: string): string[] | null {
  if (path.length < 2 || path.charCodeAt(0) !== 47 /* / */) return null;
  const end = path.charCodeAt(path.length - 1) === 47 ? path.length - 1 : path.length;
  return path.slice(1, end).split('/');
}

/** A URI component decoded as Express decodes a route parameter: a malformed one is the client's error (400). */
function decodeParam(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    throw Object.assign(new URIError(`Failed to decode param '${value}'`), { status: 400 });
  }
}

function matches(route: Route, parts: string[]): boolean {
  for (let i = 0; i < parts.length; i++) {
    const literal = route.segments[i];
    const part = parts[i];
    if (literal === null) {
      if (part.length === 0) return false;
    } else if (part !== literal && (part.length !== literal.length || part.toLowerCase() !== literal || part.includes('\u212a'))) {
      // (the Kelvin sign lower-cases to "k"; Express's case-insensitive expressions do not take it for one)
      return false;
    }
  }
  return true;
}

export class RouteTable {
  /** per method (upper case), per number of segments: the routes in the order they are tried */
  private readonly byMethod = new Map<string, Map<number, Route[]>>();

  constructor(operations: readonly Operation[]) {
    const routes = operations.map((op): Route => {
      const segments = op.path
        .slice(1)
        .split('/')
        .map((s) => (s.startsWith('{') ? null : s.toLowerCase()));
      const names = op.path
        .slice(1)
        .split('/')
        .filter((s) => s.startsWith('{'))
        .map((s) => s.slice(1, -1));
      return { op, segments, names };
    });
    // a stable sort: routes of the same shape keep the order of their declaration
    for (const route of [...routes].sort(bySpecificity)) {
      const method = route.op.method.toUpperCase();
      let byLength = this.byMethod.get(method);
      if (!byLength) this.byMethod.set(method, (byLength = new Map()));
      const list = byLength.get(route.segments.length) ?? [];
      list.push(route);
      byLength.set(route.segments.length, list);
    }
  }

  /** The operation a request names, with its decoded parameters; null when none does (see `allowed`). */
  find(method: string, path: string): RouteMatch | null {
    const parts = segmentsOf(path);
    if (!parts) return null;
    const routes = this.byMethod.get(method === 'HEAD' ? 'GET' : method)?.get(parts.length);
    if (!routes) return null;
    for (const route of routes) {
      if (!matches(route, parts)) continue;
      const params: Record<string, string> = {};
      let n = 0;
      for (let i = 0; i < parts.length; i++) if (route.segments[i] === null) params[route.names[n++]] = decodeParam(parts[i]);
      return { op: route.op, params };
    }
    return null;
  }

  /** The methods of the operations on a path (for a 405's Allow header); empty when no operation has the path. */
  allowed(path: string): string[] {
    const parts = segmentsOf(path);
    if (!parts) return [];
    const methods: string[] = [];
    for (const [method, byLength] of this.byMethod) {
      if (byLength.get(parts.length)?.some((route) => matches(route, parts))) methods.push(method);
    }
    return methods.sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b));
  }
}

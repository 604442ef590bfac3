import fs from 'node:fs';
import { LAYERS, type Layer } from './level';
import { fixturePath } from '../util/paths';

export interface PermissionInfo {
  code: string;
  layers: Layer[];
  description: string;
}

let catalog: Map<string, PermissionInfo> | undefined;

/**
 * The schema of fixtures/permissions.json. The file ships with the binary and a test holds it to this schema, so a
 * command reads it without loading zod (which would lengthen every admin command's start); the catalog still refuses a
 * duplicate code.
 */
export const permissionFixture = ({ z }: typeof import('zod')) =>
  z.object({
    permissions: z
      .array(
        z.strictObject({
          code: z.string().regex(/^[a-z-]+:[a-z-]+:[a-z-]+$/, 'must be domain:resource:action'),
          layers: z.array(z.enum(LAYERS)).min(1),
          description: z.string().min(1),
        }),
      )
      .min(1),
  });

/** The permission catalog of fixtures/permissions.json, read once. */
export function permissionCatalog(): Map<string, PermissionInfo> {
  if (catalog) return catalog;
  const file = fixturePath('permissions.json');
  const fixture = JSON.parse(fs.readFileSync(file, 'utf8')) as { permissions: PermissionInfo[] };
  const map = new Map<string, PermissionInfo>();
  for (const p of fixture.permissions) {
    if (map.has(p.code)) throw new Error(`${file}: duplicate permission ${p.code}`);
    map.set(p.code, p);
  }
  catalog = map;
  return map;
}

export function isKnownPermission(code: string): boolean {
  return permissionCatalog().has(code);
}

const layerSets = new Map<Layer, ReadonlySet<string>>();
/** Every code a holder of the layer may carry. */
export function layerPermissions(layer: Layer): ReadonlySet<string> {
  let set = layerSets.get(layer);
  if (!set) {
    set = new Set([...permissionCatalog().values()].filter((p) => p.layers.includes(layer)).map((p) => p.code));
    layerSets.set(layer, set);
  }
  return set;
}

/** Whether held permissions satisfy the required code; a `view` code is implied by the matching `manage`. */
export function allows(held: ReadonlySet<string>, required: string): boolean {
  if (held.has(required)) return true;
  if (required.endsWith(':view')) return held.has(required.slice(0, -'view'.length) + 'manage');
  return false;
}

/** Codes a key of the owner layer may carry when issued by a caller holding `held`. */
export function grantable(ownerLayer: Layer, held: ReadonlySet<string>): string[] {
  return [...layerPermissions(ownerLayer)].filter((code) => allows(held, code)).sort();
}

/**
 * The levels a caller acts at, operations.md's owner levels: the one vocabulary of every layer of the code (caller
 * contexts, operation declarations, audit readers, webhook endpoints, API keys' owners).
 */
export const LEVELS = ['merchant', 'tenant', 'platform'] as const;
export type Level = (typeof LEVELS)[number];

/**
 * How each level is spelled where the wire spells it otherwise: operations.md's letter (an operation's `levels`, its
 * x-payplane-levels in the OpenAPI document) and the access records' layer (users, roles, invitations and the
 * permission catalog call a tenant's users operators).
 */
const SPELLINGS = {
  merchant: { code: 'M', layer: 'merchant' },
  tenant: { code: 'T', layer: 'operator' },
  platform: { code: 'P', layer: 'platform' },
} as const satisfies Record<Level, { code: string; layer: string }>;

export type LevelCode = (typeof SPELLINGS)[Level]['code'];
export type Layer = (typeof SPELLINGS)[Level]['layer'];

export const LAYERS = LEVELS.map((level) => SPELLINGS[level].layer) as [Layer, ...Layer[]];

export function levelCode(level: Level): LevelCode {
  return SPELLINGS[level].code;
}

export function levelOfCode(code: LevelCode): Level {
  return LEVELS.find((level) => SPELLINGS[level].code === code)!;
}

export function layerOf(level: Level): Layer {
  return SPELLINGS[level].layer;
}

/** The level a user, role or invitation of the layer acts at. */
export function levelOfLayer(layer: Layer): Level {
  return LEVELS.find((level) => SPELLINGS[level].layer === layer)!;
}

/** The levels that own an API key (its ownerType): a merchant's or a tenant's. */
export type KeyOwnerLevel = Exclude<Level, 'platform'>;

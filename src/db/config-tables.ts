import { CONFIG_TABLES as FIRST } from './migrations/0027_config_version';
import { ADDED_CONFIG_TABLES as BALANCE_THRESHOLDS } from './migrations/0028_balance_thresholds';

/**
 * Every table whose changes bump config_version (a trigger each, added by the migration that lists it): the
 * configuration src/db/statements.ts' ConfigCache may keep between transactions. 0027 made the first ones; a later
 * migration that adds a table adds its trigger and its name here.
 */
export const CONFIG_TABLES: readonly string[] = [...FIRST, ...BALANCE_THRESHOLDS];

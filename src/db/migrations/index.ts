import type { QueryInterface } from 'sequelize';
import type { Dialect } from '../database';
import * as m0001 from './0001_foundation';
import * as m0002 from './0002_webhooks';

export interface Migration {
  name: string;
  up(qi: QueryInterface, dialect: Dialect): Promise<void>;
  down(qi: QueryInterface, dialect: Dialect): Promise<void>;
}

/** Every migration, in order. A new migration is a new file added at the end of this list. */
export const migrations: Migration[] = [
  { name: '0001_foundation', ...m0001 },
  { name: '0002_webhooks', ...m0002 },
];

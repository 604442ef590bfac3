import type { QueryInterface } from 'sequelize';
import type { Dialect } from '../dialect';
import type { Sealer } from '../../util/encryption';

/** What a migration may need besides the schema: the master key's sealer (Database.connect's `sealer`), for data sealed at rest. */
export interface MigrationEnv {
  sealer?: Pick<Sealer, 'sealBytes' | 'openBytes'>;
}

export interface Migration {
  name: string;
  up(qi: QueryInterface, dialect: Dialect, env: MigrationEnv): Promise<void>;
  down(qi: QueryInterface, dialect: Dialect, env: MigrationEnv): Promise<void>;
}

import { DataTypes, QueryTypes, type QueryInterface } from 'sequelize';
import type { Dialect } from '../dialect';
import type { MigrationEnv } from './types';
import { isSealedBytes } from '../../util/encryption';
import { dropColumns } from './columns';

// Two changes.
//
// 1. KYB documents at rest: the bytes in kyb_document_contents were stored in clear. They are now sealed
//    under the master key (Sealer.sealBytes, AES-256-GCM bound to the document id), as terminal credentials are; this
//    migration seals the rows stored before, one row at a time (a document is up to 10 MiB), and `down` opens them
//    again. It reaches the master key through the sealer Database.connect was given (openRuntime gives the runtime's):
//    a database with documents to seal and no sealer stops here, instead of leaving them in clear. On SQLite the old
//    clear pages are zeroed (secure_delete) and the -wal is truncated after the rewrite, so no
//    free page or older page version keeps the clear bytes.
//
// 2. Audit entries name the operating-system account of a CLI operator: the actor is the operator's user
//    record (actorType user, actorId its id), actorName the account (os:<name>). Entries written before keep their
//    actorType cli and actorId cli:<name>: they already name the account, and no user record stood behind them.

async function rewriteContents(qi: QueryInterface, dialect: Dialect, env: MigrationEnv, direction: 'seal' | 'open'): Promise<void> {
  const ids = await qi.sequelize.query<{ id: string }>('SELECT id FROM kyb_document_contents ORDER BY id', { type: QueryTypes.SELECT });
  if (ids.length === 0) return;
  const sealer = env.sealer;
  if (!sealer) {
    throw new Error(
      `0022: ${ids.length} KYB document(s) must be ${direction === 'seal' ? 'sealed' : 'opened'} with the master key; run the migration through payplane (payplane db migrate, serve), which knows the key`,
    );
  }
  // SQLite: the pages the clear bytes leave are zeroed, not only put on the free list
  if (dialect === 'sqlite') await qi.sequelize.query('PRAGMA secure_delete = ON');
  for (const { id } of ids) {
    const [row] = await qi.sequelize.query<{ content: Buffer | Uint8Array }>('SELECT content FROM kyb_document_contents WHERE id = :id', {
      type: QueryTypes.SELECT,
      replacements: { id },
    });
    if (!row) continue;
    const content = Buffer.isBuffer(row.content) ? row.content : Buffer.from(row.content);
    if (isSealedBytes(content) === (direction === 'seal')) continue;
    const next = direction === 'seal' ? sealer.sealBytes(content, id) : sealer.openBytes(content, id);
    await qi.sequelize.query('UPDATE kyb_document_contents SET content = :content WHERE id = :id', { replacements: { id, content: next } });
  }
  if (dialect === 'sqlite' && direction === 'seal') {
    // the clear bytes may still be in frames of the -wal: copy them into the file (overwritten there) and empty it
    await qi.sequelize.query('PRAGMA wal_checkpoint(TRUNCATE)');
  }
}

export async function up(qi: QueryInterface, dialect: Dialect, env: MigrationEnv): Promise<void> {
  await rewriteContents(qi, dialect, env, 'seal');
  await qi.addColumn('audit_entries', 'actorName', { type: DataTypes.STRING(255), allowNull: true });
}

export async function down(qi: QueryInterface, dialect: Dialect, env: MigrationEnv): Promise<void> {
  await dropColumns(qi, 'audit_entries', ['actorName']);
  await rewriteContents(qi, dialect, env, 'open');
}

import { inTransaction, type CallerContext } from '../../../domain/context';
import { ConflictError, ValidationError, type FieldIssue } from '../../../domain/errors';
import { scoped } from '../../../db/scoped';
import type { CredentialBindingRow, TerminalRow } from '../../../db/models';
import { auditedRecord, auditedUpdate, lockedRecord } from '../../audit/changes';
import { statusMachine, transition } from '../../status';
import type { CredentialSchema } from '../providers';
import { TERMINAL, terminalProvider, toTerminal, writable, type Terminal } from './record';

/**
 * A terminal's credentials: checked against the provider's credentialSchema, sealed (AES-256-GCM) into a credential
 * binding and never returned, logged or audited (a terminal shows its credentialBindingId only); opened for a
 * connector call only. Rotating them replaces the binding with a new one.
 */

/** Required keys present, no key the schema does not describe, every value a non-empty string. Never echoes a value. */
export function checkCredentials(
  schema: CredentialSchema,
  credentials: Record<string, unknown>,
  path = 'body.credentials',
): Record<string, string> {
  const issues: FieldIssue[] = [];
  for (const key of schema.required) {
    if (credentials[key] === undefined) issues.push({ path: `${path}.${key}`, message: "is required by the provider's credentialSchema" });
  }
  for (const [key, value] of Object.entries(credentials)) {
    if (!Object.hasOwn(schema.properties, key)) {
      if (schema.additionalProperties !== true)
        issues.push({ path: `${path}.${key}`, message: 'is not a credential field of this provider' });
    } else if (typeof value !== 'string' || value.length === 0) {
      issues.push({ path: `${path}.${key}`, message: 'must be a non-empty string' });
    }
  }
  if (issues.length)
    throw new ValidationError(
      `Invalid credentials: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      issues,
      'INVALID_CREDENTIALS',
    );
  return credentials as Record<string, string>;
}

/** A binding's table. Its moves are unaudited: what an entry would show is its terminal's (the rotation), never it. */
const BINDING = auditedRecord<CredentialBindingRow>({
  model: (ctx) => ctx.db.models.CredentialBinding,
  targetType: 'terminal',
  owner: (row) => ({ tenantId: row.tenantId }),
  render: (row) => ({ status: row.status }),
});

/** A binding is active until a rotation replaces it (kept sealed); the terminal's entry records the rotation. */
const BINDING_STATUS = statusMachine({
  record: BINDING,
  moves: {
    replace: {
      from: ['active'],
      to: 'replaced',
      action: 'terminal.credentials_rotated',
      also: (ctx: CallerContext): Partial<CredentialBindingRow> => ({ replacedAt: ctx.clock.now() }),
    },
  },
  refused: (row: CredentialBindingRow) =>
    new ConflictError('INVALID_STATE_TRANSITION', `Credential binding ${row.id} is ${row.status}: it cannot be replaced.`),
});

export async function seal(
  ctx: CallerContext,
  terminal: { id: string; tenantId: string; providerIntegrationId: string },
  credentials: Record<string, string>,
) {
  return scoped(ctx, ctx.db.models.CredentialBinding).create({
    tenantId: terminal.tenantId,
    terminalId: terminal.id,
    providerIntegrationId: terminal.providerIntegrationId,
    credentialsSealed: ctx.sealer.seal(JSON.stringify(credentials)),
    status: 'active',
    replacedAt: null,
  });
}

/** The terminal's credentials in plain text, for a connector call only (never for a response, a log or an audit entry). */
export async function openCredentials(ctx: CallerContext, terminalId: string, read?: TerminalRow): Promise<Record<string, string>> {
  // the terminal as the caller just read it, when it did (the provider call reads it to pick the connector)
  const terminal = read?.id === terminalId ? read : await scoped(ctx, ctx.db.models.Terminal).get(terminalId);
  return openBinding(ctx, await scoped(ctx, ctx.db.models.CredentialBinding).get(terminal.credentialBindingId));
}

/** A binding's credentials, opened (for one provider call: never kept or logged). */
export function openBinding(ctx: CallerContext, binding: CredentialBindingRow): Record<string, string> {
  return JSON.parse(ctx.sealer.open(binding.credentialsSealed)) as Record<string, string>;
}

/** A new credential binding (new id) replaces the current one, which is kept sealed and marked replaced. */
export async function rotateCredentials(ctx: CallerContext, id: string, credentials: Record<string, string>): Promise<Terminal> {
  return inTransaction(ctx, async (tx) => {
    const row = await lockedRecord(tx, TERMINAL, id);
    writable(row);
    const p = await terminalProvider(tx, row);
    const checked = checkCredentials(p.credentialSchema, credentials);
    const bindings = scoped(tx, tx.db.models.CredentialBinding);
    const old = await bindings.find(row.credentialBindingId, { lock: true });
    if (old) await transition(tx, BINDING_STATUS, old, 'replace', { unaudited: true });
    const binding = await seal(tx, row, checked);
    // the binding ids under names the audit redaction leaves readable; never a credential value
    const updated = await auditedUpdate(
      tx,
      TERMINAL,
      row,
      { credentialBindingId: binding.id },
      {
        action: 'terminal.credentials_rotated',
        render: (r) => ({ bindingId: r.credentialBindingId }),
      },
    );
    return toTerminal(updated, ctx);
  });
}

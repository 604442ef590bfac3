import type { CallerContext } from '../../../domain/context';
import { ConflictError, NotFoundError, ValidationError, type FieldIssue } from '../../../domain/errors';
import type { MpiAccountRow } from '../../../db/models';
import { itemMachine, moveWithin } from '../../status';
import { toMpiAccount, toTerminal, type MpiAccount, type Terminal } from './record';
import { changeThreeDs, checkMpi, mpiRow, type MpiAccountInput } from './three-ds';

/**
 * A terminal's MPI accounts, one per brand, held in its 3DS configuration: each change is an audited change of the
 * terminal.
 */

/** An MPI account is enabled or not; the terminal's entry (terminal.mpi_account_updated) records the move. */
const MPI_ACCOUNT_STATUS = itemMachine({
  field: 'enabled',
  moves: {
    enable: { from: [false], to: true, action: 'terminal.mpi_account_updated' },
    disable: { from: [true], to: false, action: 'terminal.mpi_account_updated' },
  },
  refused: (a: MpiAccountRow, move) => new ConflictError('INVALID_STATE_TRANSITION', `The ${a.brand} MPI account cannot be ${move}d.`),
});

function mpiNotFound(id: string, brand: string): NotFoundError {
  return new NotFoundError('MPI account', brand, { detail: `Terminal ${id} has no MPI account for brand ${brand}.` });
}

/** One MPI account per brand: 409 MPI_ACCOUNT_EXISTS when the brand has one. */
export async function addMpiAccount(ctx: CallerContext, id: string, input: MpiAccountInput): Promise<MpiAccount> {
  const row = await changeThreeDs(ctx, id, 'terminal.mpi_account_added', (r, p) => {
    const issues: FieldIssue[] = [];
    checkMpi(p, r.supportedBrands, input, 'body.', issues);
    if (issues.length) throw new ValidationError(`Invalid MPI account: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
    if (r.threeDsConfig.mpiAccounts.some((a) => a.brand === input.brand)) {
      throw new ConflictError('MPI_ACCOUNT_EXISTS', `Terminal ${id} already has an MPI account for ${input.brand}.`, {
        hint: 'Update it with PATCH …/mpi-accounts/{brand}.',
      });
    }
    return { ...r.threeDsConfig, mpiAccounts: [...r.threeDsConfig.mpiAccounts, mpiRow(input)] };
  });
  return toMpiAccount(
    row,
    row.threeDsConfig.mpiAccounts.find((a) => a.brand === input.brand)!,
  );
}

export async function updateMpiAccount(
  ctx: CallerContext,
  id: string,
  brand: string,
  input: Omit<MpiAccountInput, 'brand'>,
): Promise<MpiAccount> {
  const row = await changeThreeDs(ctx, id, 'terminal.mpi_account_updated', (r, p) => {
    const current = r.threeDsConfig.mpiAccounts.find((a) => a.brand === brand);
    if (!current) throw mpiNotFound(id, brand);
    const issues: FieldIssue[] = [];
    checkMpi(p, r.supportedBrands, { preferredVersion: input.preferredVersion }, 'body.', issues);
    if (issues.length) throw new ValidationError(`Invalid MPI account: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
    let next: MpiAccountRow = { ...current };
    for (const key of ['merchantName', 'merchantId', 'merchantCountry', 'acquirerBin', 'mcc', 'preferredVersion'] as const) {
      if (input[key] !== undefined) (next as unknown as Record<string, unknown>)[key] = input[key];
    }
    if (input.enabled !== undefined && input.enabled !== next.enabled) {
      next = moveWithin(MPI_ACCOUNT_STATUS, next, input.enabled ? 'enable' : 'disable');
    }
    return { ...r.threeDsConfig, mpiAccounts: r.threeDsConfig.mpiAccounts.map((a) => (a.brand === brand ? next : a)) };
  });
  return toMpiAccount(
    row,
    row.threeDsConfig.mpiAccounts.find((a) => a.brand === brand)!,
  );
}

/** Removes the brand's MPI account; answers with the terminal. */
export async function deleteMpiAccount(ctx: CallerContext, id: string, brand: string): Promise<Terminal> {
  const row = await changeThreeDs(ctx, id, 'terminal.mpi_account_deleted', (r) => {
    if (!r.threeDsConfig.mpiAccounts.some((a) => a.brand === brand)) throw mpiNotFound(id, brand);
    return { ...r.threeDsConfig, mpiAccounts: r.threeDsConfig.mpiAccounts.filter((a) => a.brand !== brand) };
  });
  return toTerminal(row, ctx);
}

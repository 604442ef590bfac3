import { inTransaction, type CallerContext } from '../../../domain/context';
import { ValidationError } from '../../../domain/errors';
import { scoped, type ListParams, type Page } from '../../../db/scoped';
import { createLimit, disableLimit, listLimits, type Limit, type LimitFilters, type LimitInput } from '../../limits/manage';
import { writable } from './record';

// A terminal's limits: the shared limit model (src/services/limits/manage.ts), on entityType terminal.

/** A terminal limit (the shared limit model); its currency must be one the terminal supports. */
export async function createTerminalLimit(ctx: CallerContext, terminalId: string, input: LimitInput): Promise<Limit> {
  return inTransaction(ctx, async (tx) => {
    const terminal = await scoped(tx, tx.db.models.Terminal).get(terminalId, { lock: true });
    writable(terminal);
    if (input.currency && !terminal.supportedCurrencies.includes(input.currency)) {
      throw ValidationError.field(
        'body.currency',
        `must be one of the terminal's supportedCurrencies (${terminal.supportedCurrencies.join(', ')})`,
      );
    }
    return createLimit(tx, { ...input, entityType: 'terminal', entityId: terminalId });
  });
}

export async function listTerminalLimits(
  ctx: CallerContext,
  terminalId: string,
  filters: LimitFilters,
  page: ListParams,
): Promise<Page<Limit>> {
  return listLimits(ctx, { entityType: 'terminal', entityId: terminalId }, filters, page);
}

export async function disableTerminalLimit(ctx: CallerContext, terminalId: string, limitId: string): Promise<Limit> {
  return disableLimit(ctx, { entityType: 'terminal', entityId: terminalId }, limitId);
}

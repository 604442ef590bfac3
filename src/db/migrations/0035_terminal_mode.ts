import type { QueryInterface } from 'sequelize';
import { bool, dropColumns } from './columns';

// A terminal's mode: a live terminal talks to its acquirer's live environment with live credentials (a Stripe
// sk_live_ key, Adyen's live endpoint), a sandbox terminal to its test environment. Terminals made before real
// acquirers are sandbox terminals.

export async function up(qi: QueryInterface): Promise<void> {
  await qi.addColumn('terminals', 'livemode', bool(false));
}

export async function down(qi: QueryInterface): Promise<void> {
  await dropColumns(qi, 'terminals', ['livemode']);
}

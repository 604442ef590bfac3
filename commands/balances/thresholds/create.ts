import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { sharedFlags } from '../../../src/cli/flags';
import { validateInput, validateWith } from '../../../src/cli/validate';
import { amountFlagPair, minorOf } from '../../../src/cli/amounts';
import { readAsTenantFlag } from '../../../src/cli/context';
import { ValidationError } from '../../../src/domain/errors';
import type { BalanceThreshold } from '../../../src/services/ledger/thresholds';
import { createBalanceThreshold } from '../../../src/services/ledger/thresholds';
import { CreateBalanceThresholdBody, THRESHOLD_RULE } from '../../../src/api/ledger/schemas';
import { Currency } from '../../../src/api/common';
import { z } from '../../../src/api/zod';
import { balanceTypeFlag, directionFlag, renderThreshold } from '../../../src/cli/ledger/thresholds';

export default class BalancesThresholdsCreate extends BaseCommand<typeof BalancesThresholdsCreate> {
  static override summary = 'Create a balance threshold of a merchant: balance.threshold_reached when a posting brings its balance there.';
  static override description = `${THRESHOLD_RULE} The amount is in major units of --currency (--amount-minor: minor units).`;
  static override examples = [
    '<%= config.bin %> balances thresholds create --tenant 6f1c… --merchant 0b9e… --currency EUR --balance-type available --direction above --amount 1000.00',
    '<%= config.bin %> balances thresholds create --tenant 6f1c… --merchant 0b9e… --currency EUR --balance-type pending --direction below --amount-minor 5000 --json',
  ];
  static override flags = {
    tenant: readAsTenantFlag('The tenant of the merchant (omit to act as the platform)'),
    merchant: Flags.string({ description: 'The merchant whose balance is watched' }),
    currency: Flags.string({ description: "The balance's currency (ISO 4217, e.g. EUR)" }),
    'balance-type': balanceTypeFlag,
    direction: directionFlag,
    ...amountFlagPair('amount', 'The threshold', '--currency'),
    live: sharedFlags.live,
  };

  async run(): Promise<BalanceThreshold> {
    const merchantId = await this.required(this.flags.merchant, 'merchant', 'Merchant id');
    const currency = await this.required(this.flags.currency, 'currency', 'Currency (e.g. EUR)');
    const balanceType = await this.required(this.flags['balance-type'], 'balance-type', 'Balance (available or pending)');
    const direction = await this.required(this.flags.direction, 'direction', 'Direction (above or below)');
    validateWith(z.object({ currency: Currency }), { currency });
    const valueMinor = minorOf(this.flags, 'amount', { currency, currencyFlag: '--currency' });
    if (valueMinor === undefined)
      throw ValidationError.field('--amount', 'is required: the threshold in major units of --currency (or --amount-minor in minor units)');
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      CreateBalanceThresholdBody,
      { merchantId, balanceType, direction, amount: { currency, valueMinor } },
      { merchantId: 'merchant', balanceType: 'balance-type' },
    );
    const threshold = await createBalanceThreshold(ctx, input);
    this.log(renderThreshold(threshold));
    return threshold;
  }
}

import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { renderRecord } from '../../../src/cli/output';
import { validateWith } from '../../../src/cli/validate';
import { PutThreeDsConfigBody } from '../../../src/api/processing/schemas';
import type { Terminal } from '../../../src/services/processing/terminals/record';
import { getThreeDsConfig, putThreeDsConfig } from '../../../src/services/processing/terminals/three-ds';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';

export default class Terminals3dsSet extends BaseCommand<typeof Terminals3dsSet> {
  static override summary =
    "Change a terminal's 3DS settings; what is not given stays, MPI accounts are kept (see terminals mpi-accounts).";
  static override examples = [
    '<%= config.bin %> terminals 3ds set 6f1c… --enabled --execution-model gateway_full',
    '<%= config.bin %> terminals 3ds set 6f1c… --process-only-3ds-cards --no-allow-merchant-disable --json',
  ];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('terminal', { description: 'Terminal id', required: true }) };
  static override flags = {
    ...ownerFlags('terminal'),
    enabled: Flags.boolean({ description: '3DS on (--no-enabled: off)', allowNo: true }),
    'execution-model': Flags.string({ description: 'Execution model the provider supports, e.g. gateway_full' }),
    'process-only-3ds-cards': Flags.boolean({ description: 'Process only 3DS-authenticated cards', allowNo: true }),
    'decline-on-attempt-status': Flags.boolean({ description: 'Decline on an attempt (A) status', allowNo: true }),
    'allow-merchant-disable': Flags.boolean({ description: 'Let merchants switch 3DS off', allowNo: true }),
  };

  async run(): Promise<Terminal> {
    const ctx = await this.scope();
    const current = await getThreeDsConfig(ctx, this.args.id);
    const input = validateWith(PutThreeDsConfigBody, {
      enabled: this.flags.enabled ?? current.enabled,
      executionModel: this.flags['execution-model'] ?? current.executionModel,
      rules: {
        processOnly3dsCards: this.flags['process-only-3ds-cards'] ?? current.rules.processOnly3dsCards,
        declineOnAttemptStatus: this.flags['decline-on-attempt-status'] ?? current.rules.declineOnAttemptStatus,
        allowMerchantDisable: this.flags['allow-merchant-disable'] ?? current.rules.allowMerchantDisable,
      },
    });
    const terminal = await putThreeDsConfig(ctx, this.args.id, input, { keepMpiAccounts: true });
    const c = terminal.threeDsConfig;
    this.log(
      renderRecord({
        terminal: terminal.id,
        enabled: c.enabled,
        executionModel: c.executionModel,
        ...c.rules,
        mpiAccounts: c.mpiAccounts.map((a) => a.brand),
      }),
    );
    return terminal;
  }
}

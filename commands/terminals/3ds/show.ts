import { BaseCommand } from '../../../src/cli/base-command';
import { renderRecord } from '../../../src/cli/output';
import type { ThreeDsConfig } from '../../../src/services/processing/terminals/record';
import { getThreeDsConfig } from '../../../src/services/processing/terminals/three-ds';
import { atPlatform, ownedArg, ownerFlags } from '../../../src/cli/context';
import { renderMpiAccounts } from '../../../src/cli/processing';

export default class Terminals3dsShow extends BaseCommand<typeof Terminals3dsShow> {
  static override summary = "Show a terminal's 3DS configuration and MPI accounts.";
  static override examples = ['<%= config.bin %> terminals 3ds show 6f1c…', '<%= config.bin %> terminals 3ds show 6f1c… --json'];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('terminal', { description: 'Terminal id', required: true }) };
  static override flags = { ...ownerFlags('terminal') };

  async run(): Promise<ThreeDsConfig> {
    const ctx = await this.scope();
    const config = await getThreeDsConfig(ctx, this.args.id);
    this.log(renderRecord({ enabled: config.enabled, executionModel: config.executionModel, ...config.rules }));
    if (config.mpiAccounts.length) this.log(renderMpiAccounts(config.mpiAccounts));
    return config;
  }
}

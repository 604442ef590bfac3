import { BaseCommand } from '../../src/cli/base-command';
import { validateWith } from '../../src/cli/validate';
import { RotateCredentialsBody } from '../../src/api/processing/schemas';
import type { Terminal } from '../../src/services/processing/terminals/record';
import { rotateTerminalCredentials } from '../../src/services/processing/terminals/terminals';
import { credentialFlags, credentialsFrom } from '../../src/cli/processing';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class TerminalsRotateCredentials extends BaseCommand<typeof TerminalsRotateCredentials> {
  static override summary = "Replace a terminal's credentials (a new credential binding); they are stored encrypted and never shown.";
  static override examples = [
    '<%= config.bin %> terminals rotate-credentials 6f1c… --credentials-file creds.json',
    '<%= config.bin %> terminals rotate-credentials 6f1c… --credential apiKey=… --credential merchantAccount=… --json',
  ];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('terminal', { description: 'Terminal id', required: true }) };
  static override flags = { ...ownerFlags('terminal'), ...credentialFlags };

  async run(): Promise<Terminal> {
    const { credentials } = validateWith(RotateCredentialsBody, { credentials: credentialsFrom(this.flags) });
    const ctx = await this.scope();
    const terminal = await rotateTerminalCredentials(ctx, this.args.id, credentials);
    this.log(`Terminal ${terminal.name} (${terminal.id}) now uses credential binding ${terminal.credentialBindingId}.`);
    return terminal;
  }
}

import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import { validateWith } from '../../src/cli/validate';
import { UpdatePartnerBody } from '../../src/api/partners/schemas';
import type { Partner } from '../../src/services/partners';
import { updatePartner } from '../../src/services/partners';
import { nullable, parseMetadata } from '../../src/cli/flags';
import { atPlatform, ownedArg, ownerFlags } from '../../src/cli/context';

export default class PartnersUpdate extends BaseCommand<typeof PartnersUpdate> {
  static override summary = "Change a partner's name, contact email or metadata.";
  static override examples = ['<%= config.bin %> partners update 6f1c… --name "Referral Company" --metadata tier=gold'];
  static override scopeOf = atPlatform();
  static override args = { id: ownedArg('partner', { description: 'Partner id', required: true }) };
  static override flags = {
    ...ownerFlags('partner'),
    name: Flags.string({ description: 'Display name' }),
    'contact-email': Flags.string({ description: 'Contact email ("null" clears it)' }),
    metadata: Flags.string({ description: 'Metadata as key=value (repeatable; replaces the map)', multiple: true }),
  };

  async run(): Promise<Partner> {
    const input = validateWith(UpdatePartnerBody, {
      name: this.flags.name,
      contactEmail: nullable(this.flags['contact-email']),
      metadata: parseMetadata(this.flags.metadata),
    });
    const ctx = await this.scope();
    const partner = await updatePartner(ctx, this.args.id, input);
    this.log(renderRecord({ ...partner }));
    return partner;
  }
}

import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { renderRecord } from '../../src/cli/output';
import { validateInput } from '../../src/cli/validate';
import { CreatePartnerBody } from '../../src/api/partners/schemas';
import type { Partner } from '../../src/services/partners';
import { createPartner } from '../../src/services/partners';
import { createTenantFlag, parseMetadata } from '../../src/cli/flags';
import { atPlatform } from '../../src/cli/context';

export default class PartnersCreate extends BaseCommand<typeof PartnersCreate> {
  static override summary = 'Create a partner (a reseller or referrer) of a tenant.';
  static override examples = [
    '<%= config.bin %> partners create --tenant 6f1c… --name "Referral Co" --contact-email ref@example.com',
    '<%= config.bin %> partners create --tenant 6f1c… --name "Reseller" --metadata region=EU --json',
  ];
  static override scopeOf = atPlatform();
  static override flags = {
    ...createTenantFlag,
    name: Flags.string({ description: 'Display name' }),
    'contact-email': Flags.string({ description: 'Contact email' }),
    metadata: Flags.string({ description: 'Metadata as key=value (repeatable)', multiple: true }),
  };

  async run(): Promise<Partner> {
    const name = await this.required(this.flags.name, 'name', 'Partner name');
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      CreatePartnerBody,
      {
        name,
        contactEmail: this.flags['contact-email'],
        metadata: parseMetadata(this.flags.metadata),
        tenantId: this.flags.tenant,
      },
      { tenantId: 'tenant' },
    );
    const partner = await createPartner(ctx, input);
    this.log(renderRecord({ id: partner.id, tenant: partner.tenantId, name: partner.name, status: partner.status }));
    return partner;
  }
}

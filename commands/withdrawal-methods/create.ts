import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { ValidationError } from '../../src/domain/errors';
import { validateInput } from '../../src/cli/validate';
import type { WithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { createWithdrawalMethod } from '../../src/services/withdrawal-methods/methods';
import { methodTypeOf, validateDetails, withdrawalMethodTypes } from '../../src/services/withdrawal-methods/types';
import { CreateWithdrawalMethodBody } from '../../src/api/withdrawal-methods/schemas';
import { askHidden, detailFlag, detailsFrom, methodScopeFlags, renderMethod } from '../../src/cli/withdrawal-methods';

export default class WithdrawalMethodsCreate extends BaseCommand<typeof WithdrawalMethodsCreate> {
  static override summary = 'Save a withdrawal method for a merchant; it starts cooling.';
  static override description =
    "The method is cooling until now + the tenant's withdrawal cooling period (default 24 h; 0 makes it active at once), then active. Details are checked as the API checks them (IBAN check digits, ABA routing check digit, …) and every bad one is reported as --detail.<key>. On a terminal, missing flags and required details of the type are asked for. The answer shows the details masked.";
  static override examples = [
    '<%= config.bin %> withdrawal-methods create --tenant 6f1c… --merchant 0b9e… --type bank_account --label "Main account" --detail iban="DE89 3704 0044 0532 0130 00" --detail accountHolderName="Jane Doe"',
    '<%= config.bin %> withdrawal-methods create --tenant 6f1c… --merchant 0b9e… --type us_bank_account --label ACH --detail routingNumber=021000021 --detail accountNumber=123456789 --detail accountHolderName="Jane Doe" --json',
  ];
  static override flags = {
    ...methodScopeFlags,
    merchant: Flags.string({ description: 'The merchant the method is for' }),
    type: Flags.string({ description: 'Method type (see withdrawal-methods types), e.g. bank_account' }),
    label: Flags.string({ description: 'A name for the method, e.g. "Main account"' }),
    detail: detailFlag,
  };

  async run(): Promise<WithdrawalMethod> {
    const merchantId = await this.required(this.flags.merchant, 'merchant', 'Merchant id');
    const typeKey = await this.required(
      this.flags.type,
      'type',
      `Method type (${withdrawalMethodTypes()
        .map((t) => t.type)
        .join(', ')})`,
    );
    const label = await this.required(this.flags.label, 'label', 'Label');
    const type = methodTypeOf(typeKey);
    if (!type)
      throw ValidationError.field(
        '--type',
        `is not a withdrawal method type (known: ${withdrawalMethodTypes()
          .map((t) => t.type)
          .join(', ')})`,
      );
    const details = detailsFrom(this.flags.detail);
    if (process.stdin.isTTY && process.stdout.isTTY && !this.jsonEnabled()) {
      // on a terminal, the required details not given are asked for; masked ones (IBAN, account number) without echo
      for (const spec of type.details.filter((d) => d.required && !details[d.key]?.trim())) {
        const question = `${spec.label} (${spec.key})`;
        details[spec.key] = spec.masked ? await askHidden(question) : await this.required(undefined, `detail ${spec.key}=…`, question);
      }
    }
    const ctx = await this.scope();
    const input = await validateInput(
      ctx,
      CreateWithdrawalMethodBody,
      { merchantId, methodType: type.type, label, details },
      { merchantId: 'merchant', methodType: 'type', details: 'detail' },
    );
    // checked here first so that problems name the flag (--detail.iban); the service checks them again
    input.details = validateDetails(type, input.details, '--detail');
    const method = await createWithdrawalMethod(ctx, input);
    this.log(renderMethod(method));
    return method;
  }
}

import { ValidationError } from '../../src/domain/errors';
import {
  abaRoutingProblem,
  bicProblem,
  ibanProblem,
  maskDetails,
  methodTypeOf,
  validateDetails,
  withdrawalMethodTypes,
  type WithdrawalMethodType,
} from '../../src/services/withdrawal-methods/types';

/** The catalog's validators: IBAN (country length + mod-97), BIC, ABA routing (3-7-1), digits, enum, text; masking. */

const bank = methodTypeOf('bank_account')!;
const us = methodTypeOf('us_bank_account')!;

function issues(type: WithdrawalMethodType, details: Record<string, string>, path?: string): Record<string, string> {
  try {
    validateDetails(type, details, path);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).status).toBe(400);
    return Object.fromEntries((error as ValidationError).errors!.map((e) => [e.path, e.message]));
  }
  throw new Error('expected a validation error');
}

describe('the catalog', () => {
  test('loads both types, with their required keys and currencies', () => {
    expect(withdrawalMethodTypes().map((t) => t.type)).toEqual(expect.arrayContaining(['bank_account', 'us_bank_account']));
    expect(bank.details.filter((d) => d.required).map((d) => d.key)).toEqual(['iban', 'accountHolderName']);
    expect(bank.currencies).toEqual([]);
    expect(us.currencies).toEqual(['USD']);
    expect(us.paymentMethod).toBe('bank_transfer');
    expect(methodTypeOf('crypto_wallet')).toBeUndefined();
  });
});

describe('IBAN', () => {
  const valid = [
    'DE89370400440532013000', // Germany
    'GB82WEST12345698765432', // United Kingdom
    'FR1420041010050500013M02606', // France (letters in the account)
    'NL91ABNA0417164300', // Netherlands
    'ES9121000418450200051332', // Spain
    'IT60X0542811101000000123456', // Italy
    'BE68539007547034', // Belgium (shortest SEPA)
    'CH9300762011623852957', // Switzerland
    'AT611904300234573201', // Austria
    'PL61109010140000071219812874', // Poland
    'NO9386011117947', // Norway (15)
    'MT84MALT011000012345MTLCAST001S', // Malta (31)
  ];
  test.each(valid)('%s is valid', (iban) => expect(ibanProblem(iban)).toBeNull());

  test('check digit failures are refused', () => {
    expect(ibanProblem('DE89370400440532013001')).toMatch(/check digits/);
    expect(ibanProblem('GB82WEST12345698765433')).toMatch(/check digits/);
    expect(ibanProblem('DE88370400440532013000')).toMatch(/check digits/);
    // two swapped digits
    expect(ibanProblem('NL91ABNA0417163400')).toMatch(/check digits/);
  });

  test('length per country, unknown countries and malformed values are refused', () => {
    expect(ibanProblem('DE8937040044053201300')).toMatch(/22 characters long for DE \(got 21\)/);
    expect(ibanProblem('DE893704004405320130000')).toMatch(/22 characters/);
    expect(ibanProblem('XX89370400440532013000')).toMatch(/supported country \(XX\)/);
    expect(ibanProblem('US12345678901234')).toMatch(/supported country/);
    expect(ibanProblem('DEXX370400440532013000')).toMatch(/must be an IBAN/);
    expect(ibanProblem('DE89-3704-0044')).toMatch(/must be an IBAN/);
  });

  test('validateDetails normalizes spaces and case before checking', () => {
    expect(validateDetails(bank, { iban: ' de89 3704 0044 0532 0130 00 ', accountHolderName: '  Jane Doe ' })).toEqual({
      iban: 'DE89370400440532013000',
      accountHolderName: 'Jane Doe',
    });
  });
});

describe('BIC', () => {
  test.each(['DEUTDEFF', 'DEUTDEFF500', 'NWBKGB2L', 'BNPAFRPPXXX'])('%s is valid', (bic) => expect(bicProblem(bic)).toBeNull());
  test.each(['DEUTDEF', 'DEUTDEFF50', 'DEUT12FF', 'DEUTDEFF5000', '1EUTDEFF'])('%s is refused', (bic) =>
    expect(bicProblem(bic)).toMatch(/8 or 11/),
  );
  test('a BIC naming no country is refused', () => expect(bicProblem('DEUTZZFF')).toMatch(/no country/));
});

describe('ABA routing number', () => {
  test.each(['021000021', '011000015', '121000358', '026009593', '122105155'])('%s is valid', (n) =>
    expect(abaRoutingProblem(n)).toBeNull(),
  );
  test('a wrong check digit is refused', () => {
    expect(abaRoutingProblem('021000022')).toMatch(/check digit/);
    expect(abaRoutingProblem('121000359')).toMatch(/check digit/);
  });
  test('not 9 digits, or all zeros, is refused', () => {
    expect(abaRoutingProblem('02100002')).toMatch(/9 digits/);
    expect(abaRoutingProblem('0210000211')).toMatch(/9 digits/);
    expect(abaRoutingProblem('02100002A')).toMatch(/9 digits/);
    expect(abaRoutingProblem('000000000')).toMatch(/not a valid/);
  });
});

describe('validateDetails', () => {
  test('reports every bad key at once under the given path', () => {
    expect(issues(bank, { iban: 'DE89370400440532013001', bic: 'DEUTDEF', nickname: 'x' })).toEqual({
      'body.details.iban': expect.stringMatching(/check digits/),
      'body.details.accountHolderName': expect.stringMatching(/is required for bank_account/),
      'body.details.bic': expect.stringMatching(/8 or 11/),
      'body.details.nickname': expect.stringMatching(/is not a detail of bank_account/),
    });
    expect(Object.keys(issues(bank, {}, '--detail')).sort()).toEqual(['--detail.accountHolderName', '--detail.iban']);
  });

  test('an empty or blank required value is missing; an empty optional value is dropped', () => {
    expect(issues(bank, { iban: '   ', accountHolderName: 'Jane' })).toEqual({ 'body.details.iban': expect.stringMatching(/is required/) });
    expect(validateDetails(bank, { iban: 'DE89370400440532013000', accountHolderName: 'Jane', bic: '' })).toEqual({
      iban: 'DE89370400440532013000',
      accountHolderName: 'Jane',
    });
  });

  test('us_bank_account: routing check digit, digits with lengths, enum values, text length', () => {
    const good = { routingNumber: '021000021', accountNumber: '000123456789', accountHolderName: 'Jane Doe', accountType: 'checking' };
    expect(validateDetails(us, good)).toEqual(good);
    expect(
      issues(us, {
        ...good,
        routingNumber: '021000022',
        accountNumber: '12-34',
        accountType: 'brokerage',
        accountHolderName: 'x'.repeat(141),
      }),
    ).toEqual({
      'body.details.routingNumber': expect.stringMatching(/check digit/),
      'body.details.accountNumber': 'must contain digits only',
      'body.details.accountType': 'must be one of "checking", "savings"',
      'body.details.accountHolderName': 'must be at most 140 characters long',
    });
    expect(issues(us, { ...good, accountNumber: '123' })).toEqual({ 'body.details.accountNumber': 'must be at least 4 digits long' });
    expect(issues(us, { ...good, accountNumber: '1'.repeat(18) })).toEqual({
      'body.details.accountNumber': 'must be at most 17 digits long',
    });
  });
});

describe('maskDetails', () => {
  test('masked keys keep their last 4 characters behind bullets; others stay', () => {
    expect(maskDetails(bank, { iban: 'DE89370400440532013000', accountHolderName: 'Jane Doe', bic: 'DEUTDEFF' })).toEqual({
      iban: `${'•'.repeat(18)}3000`,
      accountHolderName: 'Jane Doe',
      bic: 'DEUTDEFF',
    });
    expect(maskDetails(us, { routingNumber: '021000021', accountNumber: '000123456789' })).toEqual({
      routingNumber: '021000021',
      accountNumber: '••••••••6789',
    });
  });

  test('short values get at least 4 bullets and never show more than half of themselves', () => {
    expect(maskDetails(us, { accountNumber: '12345678' })).toEqual({ accountNumber: '••••5678' });
    expect(maskDetails(us, { accountNumber: '123456' })).toEqual({ accountNumber: '••••456' });
    expect(maskDetails(us, { accountNumber: '1234' })).toEqual({ accountNumber: '••••34' });
  });
});

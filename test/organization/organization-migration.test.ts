import { createTestRuntime, dialectName, type TestRuntime } from '../helpers/db';
import { createSandbox } from '../../src/services/sandbox/provision';

let t: TestRuntime;
beforeAll(async () => {
  t = await createTestRuntime();
});
afterAll(() => t.close());

async function columns(table: string): Promise<string[]> {
  return Object.keys(await t.rt.db.sequelize.getQueryInterface().describeTable(table)).sort();
}

describe(`migration 0003_organization (${dialectName})`, () => {
  test('down removes its columns and keeps the rows; up adds them back and fills them', async () => {
    const sandbox = await createSandbox(t.rt);
    const migrator = t.rt.db.migrator();
    const names = (await migrator.executed()).map((m) => m.name);
    const index = names.indexOf('0003_organization');
    expect(index).toBeGreaterThan(0);
    const after = names.slice(index);

    await migrator.down({ to: '0003_organization' });
    expect(await columns('merchants')).not.toEqual(expect.arrayContaining(['checkoutHosting']));
    expect(await columns('merchants')).not.toContain('threeDsConfig');
    expect(await columns('companies')).not.toContain('searchText');
    expect(await t.rt.db.sequelize.getQueryInterface().rawSelect('merchants', { where: { id: sandbox.merchantId } }, 'name')).toBe(
      'Sandbox Merchant',
    );

    await migrator.up({ to: after[after.length - 1] });
    expect(await columns('merchants')).toEqual(expect.arrayContaining(['checkoutHosting', 'processingMode', 'threeDsConfig']));
    const merchant = await t.rt.db.models.Merchant.findByPk(sandbox.merchantId);
    expect(merchant!.get('checkoutHosting')).toBe('self_hosted');
    expect(merchant!.get('processingMode')).toBe('principal');
    const config = merchant!.get('threeDsConfig');
    expect(typeof config === 'string' ? JSON.parse(config) : config).toEqual({
      enabled: true,
      challengePreference: 'no_preference',
      exemptions: [],
    });
    const company = await t.rt.db.models.Company.findByPk(sandbox.companyId);
    expect(company!.get('searchText')).toBe('sandbox company\nsandbox company');
  });
});

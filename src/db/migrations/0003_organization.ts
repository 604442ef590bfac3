import { DataTypes, QueryTypes, type QueryInterface } from 'sequelize';
import type { Dialect } from '../dialect';
import { dropColumns } from './columns';

// Companies and merchants (organization area). The tables exist since 0001; this adds what the organization
// operations need: the merchant's checkout hosting, processing mode and 3DS configuration, and the companies'
// normalised search text (name and legal name, lower-cased the same way on SQLite and Postgres).

/** The search text of a company: name and legal name, lower-cased (Unicode-aware, in JavaScript). */
export function companySearchText(name: string, legalName: string | null): string {
  return [name, legalName ?? ''].join('\n').toLowerCase();
}

export const DEFAULT_THREE_DS_CONFIG = { enabled: true, challengePreference: 'no_preference', exemptions: [] as string[] };

export async function up(qi: QueryInterface, dialect: Dialect): Promise<void> {
  // Company names and legal names up to 256 characters (the search parameter's length): 0001 made them
  // VARCHAR(255). SQLite does not enforce the length; Postgres gets TEXT.
  if (dialect === 'postgres') {
    await qi.sequelize.query('ALTER TABLE "companies" ALTER COLUMN "name" TYPE TEXT, ALTER COLUMN "legalName" TYPE TEXT');
  }
  await qi.addColumn('merchants', 'checkoutHosting', { type: DataTypes.STRING(255), allowNull: false, defaultValue: 'self_hosted' });
  await qi.addColumn('merchants', 'processingMode', { type: DataTypes.STRING(255), allowNull: false, defaultValue: 'principal' });
  await qi.addColumn('merchants', 'threeDsConfig', { type: DataTypes.JSON, allowNull: true });
  await qi.addIndex('merchants', ['companyId', 'createdAt', 'id'], { name: 'merchants_company_created' });

  await qi.addColumn('companies', 'searchText', { type: DataTypes.TEXT, allowNull: true });
  await qi.addIndex('companies', ['tenantId', 'livemode', 'createdAt', 'id'], { name: 'companies_tenant_mode_created' });

  // Rows written before this migration: fill the new columns.
  const companies = await qi.sequelize.query<{ id: string; name: string; legalName: string | null }>(
    'SELECT "id", "name", "legalName" FROM "companies"',
    { type: QueryTypes.SELECT },
  );
  for (const c of companies) {
    await qi.bulkUpdate('companies', { searchText: companySearchText(c.name, c.legalName) }, { id: c.id });
  }
  await qi.bulkUpdate('merchants', { threeDsConfig: JSON.stringify(DEFAULT_THREE_DS_CONFIG) }, { threeDsConfig: null });
}

export async function down(qi: QueryInterface, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    await qi.sequelize.query(
      'ALTER TABLE "companies" ALTER COLUMN "name" TYPE VARCHAR(255) USING left("name", 255), ' +
        'ALTER COLUMN "legalName" TYPE VARCHAR(255) USING left("legalName", 255)',
    );
  }
  await qi.removeIndex('companies', 'companies_tenant_mode_created');
  await qi.removeIndex('merchants', 'merchants_company_created');
  await dropColumns(qi, 'companies', ['searchText']);
  await dropColumns(qi, 'merchants', ['threeDsConfig', 'processingMode', 'checkoutHosting']);
}

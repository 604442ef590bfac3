import { renderRecord, renderTable, statusColour } from './output';
import type { Page } from '../db/scoped';
import type { Company } from '../services/organization/companies';
import type { Merchant } from '../services/organization/merchants';

export function companyTable(page: Page<Company>): string {
  return [
    renderTable(page.data, [
      { header: 'ID', get: (c) => c.id },
      { header: 'Name', get: (c) => c.name },
      { header: 'Country', get: (c) => c.country },
      { header: 'Status', get: (c) => statusColour(c.status) },
      { header: 'Mode', get: (c) => (c.livemode ? 'live' : 'sandbox') },
      { header: 'Tenant', get: (c) => c.tenantId },
    ]),
    pageLine(page),
  ].join('\n');
}

export function merchantTable(page: Page<Merchant>): string {
  return [
    renderTable(page.data, [
      { header: 'ID', get: (m) => m.id },
      { header: 'Name', get: (m) => m.name },
      { header: 'Status', get: (m) => statusColour(m.status) },
      { header: 'Live', get: (m) => m.liveStatus },
      { header: 'Company', get: (m) => m.companyId },
      { header: 'Currency', get: (m) => m.defaultCurrency ?? '' },
    ]),
    pageLine(page),
  ].join('\n');
}

export function merchantRecord(m: Merchant): string {
  return renderRecord({ ...m, threeDsConfig: m.threeDsConfig });
}

export function companyRecord(c: Company): string {
  return renderRecord({ ...c });
}

function pageLine(page: Page<unknown>): string {
  const next = page.pagination.nextCursor ? ` (next: --cursor ${page.pagination.nextCursor})` : '';
  return `${page.data.length} of ${page.pagination.totalCount}${next}`;
}

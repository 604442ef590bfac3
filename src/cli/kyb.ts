import { renderRecord, renderTable, statusColour } from './output';
import type { KybSubmission } from '../services/kyb/submissions';
import { scopeFlag, tenantOrPlatformContext } from './context';

/**
 * --tenant of the kyb commands, the reviewer: an operator of the tenant (a submission of another tenant is then 404),
 * or the platform. KYB records have no mode, so the mode is the sandbox one.
 */
export const kybFlags = {
  tenant: scopeFlag('Act as an operator of this tenant (default: the platform, which sees every tenant)', async (rt, tenantId) =>
    tenantOrPlatformContext(rt, tenantId, false),
  ),
};

export function renderSubmission(s: KybSubmission): string {
  const { documents, data, ...rest } = s;
  const lines = [renderRecord({ ...rest, status: statusColour(s.status), data })];
  if (documents.length) {
    lines.push(
      '',
      renderTable(documents, [
        { header: 'Document', get: (d) => d.id },
        { header: 'Type', get: (d) => d.documentType },
        { header: 'File', get: (d) => d.filename },
        { header: 'Content type', get: (d) => d.contentType },
        { header: 'Size', get: (d) => d.size },
        { header: 'Verdict', get: (d) => d.verdict },
      ]),
    );
  } else {
    lines.push('', 'No documents.');
  }
  return lines.join('\n');
}

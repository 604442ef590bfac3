import { Flags } from '@oclif/core';
import { renderRecord, renderTable, statusColour } from './output';
import type { CallerContext } from '../domain/context';
import type { Runtime } from '../runtime';
import type { KybSubmission } from '../services/kyb/submissions';
import { tenantOrPlatformContext } from './scope';


export const kybFlags = {
  tenant: Flags.string({ description: 'Act as an operator of this tenant (default: the platform, which sees every tenant)' }),
};

/**
 * The reviewer's context: an operator of --tenant (a submission of another tenant is then 404), or the platform.
 * KYB records have no mode, so the mode is the sandbox one.
 */
export function reviewContext(rt: Runtime, tenantId: string | undefined): CallerContext {
  return tenantOrPlatformContext(rt, tenantId, false);
}

export function renderSubmission(s: KybSubmission): string {
  const { documents, data, ...rest } = s;
  const lines = [renderRecord({ ...rest, status: statusColour(s.status), data })];
  if (documents.length) {
    lines.push('', renderTable(documents, [
      { header: 'Document', get: (d) => d.id },
      { header: 'Type', get: (d) => d.documentType },
      { header: 'File', get: (d) => d.filename },
      { header: 'Content type', get: (d) => d.contentType },
      { header: 'Size', get: (d) => d.size },
      { header: 'Verdict', get: (d) => d.verdict },
    ]));
  } else {
    lines.push('', 'No documents.');
  }
  return lines.join('\n');
}

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { dialectName } from '../helpers/db';
import { useCliSandbox } from '../helpers/cli';
import { operatorContext } from '../../src/services/access/operators';
import { createTenant } from '../../src/services/tenants/tenants';
import { createCompanyRecord, createMerchantRecord } from '../../src/services/organization/records';
import * as kyb from '../../src/services/kyb/submissions';
import { uploadDocument } from '../../src/services/kyb/documents';
import type { CallerContext } from '../../src/domain/context';

const s = useCliSandbox({ sandbox: {}, runtime: true });
let otherTenantId: string;
const cli = s.cli;
const NO_ESCAPES = /\u001b\[/;

const data = {
  legalName: 'Acme Trading GmbH',
  registrationNumber: 'HRB 12345',
  country: 'DE',
  registeredAddress: { line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
  owners: [{ name: 'Ada Lovelace', ownershipPercent: 100 }],
};
const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), crypto.randomBytes(30_000)]);

/** A merchant of its own company with a submitted KYB submission holding one PDF. */
async function submittedFor(merchantCtx: CallerContext): Promise<{ id: string; documentId: string }> {
  const draft = await kyb.createSubmission(merchantCtx, { data });
  const withDoc = await uploadDocument(merchantCtx, draft.id, {
    contentType: 'application/pdf',
    filename: 'certificate.pdf',
    bytes: pdf,
    documentType: 'certificate_of_incorporation',
  });
  await kyb.submitSubmission(merchantCtx, draft.id);
  return { id: draft.id, documentId: withDoc.documents[0].id };
}

async function newMerchantCtx(): Promise<CallerContext> {
  const operator = operatorContext(s.rt, { level: 'tenant', tenantId: s.sandbox.tenantId, livemode: false });
  const company = await createCompanyRecord(operator, { name: `Co ${crypto.randomUUID().slice(0, 6)}`, country: 'DE', livemode: false });
  const merchant = await createMerchantRecord(operator, { companyId: company.id, name: 'M' });
  return operatorContext(s.rt, { level: 'merchant', tenantId: s.sandbox.tenantId, merchantId: merchant.id, livemode: false });
}

beforeAll(async () => {
  otherTenantId = (await createTenant(operatorContext(s.rt, { level: 'platform', tenantId: null, livemode: true }), { name: 'Other' })).id;
});

describe(`payplane kyb (${dialectName})`, () => {
  test('review list, get, document-verdict, documents download and approve', async () => {
    const merchantCtx = operatorContext(s.rt, {
      level: 'merchant',
      tenantId: s.sandbox.tenantId,
      merchantId: s.sandbox.merchantId,
      livemode: false,
    });
    const { id, documentId } = await submittedFor(merchantCtx);

    const list = await cli('kyb', 'review', 'list', '--tenant', s.sandbox.tenantId, '--status', 'submitted', '--json');
    expect(list.status).toBe(0);
    expect(list.json().data.map((s: { id: string }) => s.id)).toEqual([id]);
    const table = await cli('kyb', 'review', 'list');
    expect(table.status).toBe(0);
    expect(table.stdout).toContain(id);
    expect(table.stdout).toContain('Acme Trading GmbH');
    expect(table.stdout).not.toMatch(NO_ESCAPES);

    const got = await cli('kyb', 'review', 'get', id);
    expect(got.status).toBe(0);
    expect(got.stdout).toContain('certificate.pdf');
    expect(got.stdout).toContain('pending');

    const out = path.join(s.db.home, 'downloaded.pdf');
    const saved = await cli('kyb', 'documents', 'download', id, documentId, '--out', out, '--tenant', s.sandbox.tenantId, '--json');
    expect(saved.status).toBe(0);
    expect(saved.json()).toMatchObject({
      documentId,
      path: out,
      size: pdf.length,
      sha256: crypto.createHash('sha256').update(pdf).digest('hex'),
    });
    expect(Buffer.compare(fs.readFileSync(out), pdf)).toBe(0);
    const again = await cli('kyb', 'documents', 'download', id, documentId, '--out', out, '--json');
    expect(again.status).toBe(2);
    expect(again.json().error.code).toBe('FILE_EXISTS');

    // approving before the document has a verdict is a conflict (exit 5)
    const early = await cli('kyb', 'review', 'approve', id, '--json');
    expect(early.status).toBe(5);
    expect(early.json().error.code).toBe('KYB_DOCUMENTS_NOT_ACCEPTED');
    const verdict = await cli(
      'kyb',
      'review',
      'document-verdict',
      id,
      documentId,
      '--verdict',
      'accepted',
      '--comment',
      'ok',
      '--tenant',
      s.sandbox.tenantId,
      '--json',
    );
    expect(verdict.status).toBe(0);
    expect(verdict.json()).toMatchObject({
      status: 'in_review',
      documents: [{ id: documentId, verdict: 'accepted', verdictComment: 'ok' }],
    });
    const approved = await cli('kyb', 'review', 'approve', id, '--comment', 'Register checked', '--json');
    expect(approved.status).toBe(0);
    expect(approved.json()).toMatchObject({ id, status: 'approved', reviewerComment: 'Register checked' });
    expect(
      await kyb.companyHasApprovedKyb(
        operatorContext(s.rt, { level: 'tenant', tenantId: s.sandbox.tenantId, livemode: true }),
        s.sandbox.companyId,
      ),
    ).toBe(true);
  });

  test('request-information and reject; missing flags exit 2, other tenants and unknown ids exit 4, illegal moves 5', async () => {
    const { id } = await submittedFor(await newMerchantCtx());
    expect((await cli('kyb', 'review', 'get', id, '--tenant', otherTenantId, '--json')).status).toBe(4);
    expect((await cli('kyb', 'review', 'get', crypto.randomUUID(), '--json')).status).toBe(4);
    const noMessage = await cli('kyb', 'review', 'request-information', id, '--json');
    expect(noMessage.status).toBe(2);
    expect(noMessage.json().error.errors[0].path).toBe('--message');
    const asked = await cli('kyb', 'review', 'request-information', id, '--message', 'Add a bank statement', '--json');
    expect(asked.status).toBe(0);
    expect(asked.json()).toMatchObject({ status: 'information_requested', informationRequest: 'Add a bank statement' });
    const stuck = await cli('kyb', 'review', 'reject', id, '--reason', 'x', '--json');
    expect(stuck.status).toBe(5);
    expect(stuck.json().error.code).toBe('INVALID_STATE_TRANSITION');

    const second = await submittedFor(await newMerchantCtx());
    const noReason = await cli('kyb', 'review', 'reject', second.id, '--json');
    expect(noReason.status).toBe(2);
    const rejected = await cli('kyb', 'review', 'reject', second.id, '--reason', 'Registry mismatch', '--tenant', s.sandbox.tenantId);
    expect(rejected.status).toBe(0);
    expect(rejected.stdout).toContain('rejected');
  });
});

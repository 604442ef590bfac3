import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { useApiHarness, createLiveTenantKey, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { operatorContext } from '../../src/services/access/operators';
import { createApiKey } from '../../src/services/api-keys/keys';
import { createCompanyRecord, createMerchantRecord } from '../../src/services/organization/records';
import { companyHasApprovedKyb } from '../../src/services/kyb/submissions';

let tenantKey: string;
let merchantKey: string;
let platform: string;
let other: { tenantId: string; secretKey: string };
/** a second merchant of the sandbox company, and a merchant of its own company */
let sibling: { id: string; key: string };
let stranger: { id: string; companyId: string; key: string };
/** a merchant of another tenant */
let foreign: { id: string; key: string };

async function merchantKeyFor(tenantId: string, merchantId: string, livemode = false): Promise<string> {
  const ctx = operatorContext(h.rt, { level: 'merchant', tenantId, merchantId, livemode });
  return (await createApiKey(ctx, { ownerType: 'merchant', livemode })).secretKey;
}

async function newMerchant(
  tenantId: string,
  companyId?: string,
  livemode = false,
): Promise<{ id: string; companyId: string; key: string }> {
  const operator = operatorContext(h.rt, { level: 'tenant', tenantId, livemode });
  const cId =
    companyId ?? (await createCompanyRecord(operator, { name: `Co ${crypto.randomUUID().slice(0, 6)}`, country: 'DE', livemode })).id;
  const m = await createMerchantRecord(operator, {
    companyId: cId,
    name: `M ${crypto.randomUUID().slice(0, 6)}`,
    liveStatus: livemode ? 'approved' : undefined,
  });
  return { id: m.id, companyId: cId, key: await merchantKeyFor(tenantId, m.id, livemode) };
}

const h = useApiHarness();
beforeAll(async () => {
  tenantKey = h.sandbox.tenantKey.secretKey;
  merchantKey = h.sandbox.merchantKey.secretKey;
  platform = h.sandbox.platformToken;
  other = await createLiveTenantKey(h);
  sibling = await newMerchant(h.sandbox.tenantId, h.sandbox.companyId);
  stranger = await newMerchant(h.sandbox.tenantId);
  foreign = await newMerchant(other.tenantId, undefined, true);
});

const pdf = (n = 2000) => Buffer.concat([Buffer.from('%PDF-1.7\n'), crypto.randomBytes(n)]);
const png = (n = 500) => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), crypto.randomBytes(n)]);
const jpeg = (n = 500) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), crypto.randomBytes(n)]);

const completeData = {
  legalName: 'Acme Trading GmbH',
  registrationNumber: 'HRB 12345',
  country: 'DE',
  incorporationDate: '2019-04-01',
  website: 'https://acme.example',
  registeredAddress: { line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
  owners: [
    { name: 'Ada Lovelace', ownershipPercent: 60, nationality: 'GB' },
    { name: 'Grace Hopper', ownershipPercent: 40 },
  ],
};

function binary(req: request.Test): request.Test {
  return req.buffer(true).parse((res, cb) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => {
      const bytes = Buffer.concat(chunks);
      // problems stay JSON, so expectProblem can read them
      cb(null, /json/.test(String(res.headers['content-type'])) ? JSON.parse(bytes.toString()) : bytes);
    });
  });
}

function uploadRaw(
  key: string,
  id: string,
  bytes: Buffer,
  contentType: string,
  type = 'certificate_of_incorporation',
  filename?: string,
): request.Test {
  const req = request(h.app)
    .post(`/v1/kyb-submissions/${id}/documents?type=${type}`)
    .set('Authorization', `Bearer ${key}`)
    .set('Content-Type', contentType);
  if (filename) req.set('Content-Disposition', `attachment; filename="${filename}"`);
  return req.send(bytes);
}

function uploadMultipart(
  key: string,
  id: string,
  bytes: Buffer,
  contentType: string,
  filename: string,
  type = 'proof_of_address',
): request.Test {
  return request(h.app)
    .post(`/v1/kyb-submissions/${id}/documents?type=${type}`)
    .set('Authorization', `Bearer ${key}`)
    .attach('file', bytes, { filename, contentType });
}

function download(key: string, id: string, documentId: string): request.Test {
  return binary(request(h.app).get(`/v1/kyb-submissions/${id}/documents/${documentId}/content`).set('Authorization', `Bearer ${key}`));
}

async function countDocuments(): Promise<{ docs: number; contents: number }> {
  return { docs: await h.rt.db.models.KybDocument.count(), contents: await h.rt.db.models.KybDocumentContent.count() };
}

async function auditActions(targetId: string, key = tenantKey): Promise<string[]> {
  const res = await h.as(key).get(`/v1/audit-entries?targetId=${targetId}&limit=100&sortOrder=asc`);
  expect(res.status).toBe(200);
  return res.body.data.map((e: { action: string }) => e.action);
}

/** A fresh merchant with its own company and a draft holding complete data and one PDF document. */
async function readyDraft(): Promise<{ merchant: { id: string; companyId: string; key: string }; id: string; documentId: string }> {
  const merchant = await newMerchant(h.sandbox.tenantId);
  const created = await h.as(merchant.key).post('/v1/kyb-submissions', { data: completeData });
  expect(created.status).toBe(201);
  const up = await uploadRaw(merchant.key, created.body.data.id, pdf(), 'application/pdf', 'certificate_of_incorporation', 'cert.pdf');
  expect(up.status).toBe(201);
  return { merchant, id: created.body.data.id, documentId: up.body.data.documents[0].id };
}

async function submitted() {
  const draft = await readyDraft();
  const res = await h.as(draft.merchant.key).post(`/v1/kyb-submissions/${draft.id}/submit`);
  expect(res.status).toBe(200);
  return draft;
}

describe(`KYB submissions: the merchant side (${dialectName})`, () => {
  let draftId: string;

  test('a merchant creates a draft for its company; a second open one for the same company is 409', async () => {
    expectProblem(await h.as(merchantKey).get('/v1/kyb-submissions/latest'), 404);
    const res = await h.as(merchantKey).post('/v1/kyb-submissions', { data: { legalName: 'Sandbox Company GmbH' } });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenantId: h.sandbox.tenantId,
      companyId: h.sandbox.companyId,
      merchantId: h.sandbox.merchantId,
      status: 'draft',
      data: { legalName: 'Sandbox Company GmbH' },
      reviewerComment: null,
      rejectionReason: null,
      informationRequest: null,
      submittedAt: null,
      reviewedAt: null,
      reviewedBy: null,
      decidedAt: null,
      documents: [],
      createdAt: '2026-03-01T12:00:00.000Z',
      updatedAt: '2026-03-01T12:00:00.000Z',
      deletedAt: null,
    });
    draftId = res.body.data.id;
    expectProblem(await h.as(merchantKey).post('/v1/kyb-submissions', {}), 409, 'KYB_SUBMISSION_OPEN');
    // the rule is per company: another merchant of the same company cannot open a second one either
    expectProblem(await h.as(sibling.key).post('/v1/kyb-submissions', {}), 409, 'KYB_SUBMISSION_OPEN');

    const latest = await h.as(merchantKey).get('/v1/kyb-submissions/latest');
    expect(latest.status).toBe(200);
    expect(latest.body.data.id).toBe(draftId);
    const got = await h.as(merchantKey).get(`/v1/kyb-submissions/${draftId}`);
    expect(got.body.data).toEqual(res.body.data);
    const list = await h.as(merchantKey).get('/v1/kyb-submissions?status=draft');
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([draftId]);
    expect(list.body.pagination).toMatchObject({ totalCount: 1, hasMore: false });
    expect((await h.as(merchantKey).get('/v1/kyb-submissions?status=approved')).body.data).toEqual([]);
    expect(await auditActions(draftId)).toEqual(['kyb_submission.created']);
  });

  test('bad input is 400 naming the field; tenant callers cannot create (403)', async () => {
    const cases: [object, string][] = [
      [{ data: { legalName: 'x', shoeSize: 44 } }, 'body.data.shoeSize'],
      [{ data: { country: 'Germany' } }, 'body.data.country'],
      [{ data: { owners: [{ name: 'A', ownershipPercent: 140 }] } }, 'body.data.owners[0].ownershipPercent'],
      [{ data: { registeredAddress: { line1: 'x', planet: 'Mars' } } }, 'body.data.registeredAddress.planet'],
      [{ extra: true }, 'body.extra'],
    ];
    for (const [body, field] of cases) {
      const res = await h.as(stranger.key).post('/v1/kyb-submissions', body);
      expectProblem(res, 400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(field);
    }
    expectProblem(await h.as(tenantKey).post('/v1/kyb-submissions', {}), 403);
    expectProblem(await h.as(tenantKey).get('/v1/kyb-submissions'), 403);
    expectProblem(await h.as(merchantKey).patch(`/v1/kyb-submissions/${draftId}`, { data: { incorporationDate: '2019-13-45' } }), 400);
    expectProblem(await h.as(merchantKey).patch(`/v1/kyb-submissions/${draftId}`, {}), 400);
  });

  test('PATCH replaces the given data fields and null removes one', async () => {
    const res = await h
      .as(merchantKey)
      .patch(`/v1/kyb-submissions/${draftId}`, { data: { registrationNumber: 'HRB 1', tradingName: 'Sandy' } });
    expect(res.status).toBe(200);
    expect(res.body.data.data).toEqual({ legalName: 'Sandbox Company GmbH', registrationNumber: 'HRB 1', tradingName: 'Sandy' });
    const cleared = await h.as(merchantKey).patch(`/v1/kyb-submissions/${draftId}`, { data: { tradingName: null, ...completeData } });
    expect(cleared.body.data.data).toEqual(completeData);
    expect(await auditActions(draftId)).toEqual(['kyb_submission.created', 'kyb_submission.updated', 'kyb_submission.updated']);
  });

  test('submit names every missing essential (400) and needs a document', async () => {
    const fresh = await h.as(stranger.key).post('/v1/kyb-submissions', { data: { legalName: 'Stranger Ltd', owners: [{ name: 'Bob' }] } });
    expect(fresh.status).toBe(201);
    const res = await h.as(stranger.key).post(`/v1/kyb-submissions/${fresh.body.data.id}/submit`);
    expectProblem(res, 400, 'KYB_INCOMPLETE');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([
      'data.registrationNumber',
      'data.country',
      'data.registeredAddress',
      'data.owners[0].ownershipPercent',
      'documents',
    ]);
    expect((await h.as(stranger.key).get(`/v1/kyb-submissions/${fresh.body.data.id}`)).body.data.status).toBe('draft');
  });

  test('raw and multipart uploads of PDF, PNG and JPEG download byte for byte, for merchant, tenant and platform', async () => {
    const a = pdf(50_000);
    const raw = await uploadRaw(merchantKey, draftId, a, 'application/pdf', 'certificate_of_incorporation', 'certificate.pdf');
    expect(raw.status).toBe(201);
    expect(raw.body.data.documents).toHaveLength(1);
    const docA = raw.body.data.documents[0];
    expect(docA).toEqual({
      id: expect.any(String),
      submissionId: draftId,
      documentType: 'certificate_of_incorporation',
      filename: 'certificate.pdf',
      contentType: 'application/pdf',
      size: a.length,
      sha256: crypto.createHash('sha256').update(a).digest('hex'),
      verdict: 'pending',
      verdictComment: null,
      verdictAt: null,
      verdictBy: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const b = png(3000);
    const multi = await uploadMultipart(merchantKey, draftId, b, 'image/png', 'address.png', 'proof_of_address');
    expect(multi.status).toBe(201);
    const docB = multi.body.data.documents[1];
    expect(docB).toMatchObject({ filename: 'address.png', contentType: 'image/png', documentType: 'proof_of_address', size: b.length });
    const c = jpeg(2000);
    const named = await request(h.app)
      .post(`/v1/kyb-submissions/${draftId}/documents?type=ubo_identity&filename=passport.jpg`)
      .set('Authorization', `Bearer ${merchantKey}`)
      .set('Content-Type', 'image/jpeg')
      .send(c);
    expect(named.status).toBe(201);
    const docC = named.body.data.documents[2];
    expect(docC).toMatchObject({ filename: 'passport.jpg', contentType: 'image/jpeg' });

    const d = pdf(100);
    // a non-ASCII name (RFC 5987 in a raw upload) is kept; the download's header carries an ASCII rendering
    const unicode = await request(h.app)
      .post(`/v1/kyb-submissions/${draftId}/documents?type=other`)
      .set('Authorization', `Bearer ${merchantKey}`)
      .set('Content-Type', 'application/pdf')
      .set('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent('Handelsregister-Auszug-证书.pdf')}`)
      .send(d);
    expect(unicode.status).toBe(201);
    const docD = unicode.body.data.documents[3];
    expect(docD.filename).toBe('Handelsregister-Auszug-证书.pdf');
    const backD = await download(merchantKey, draftId, docD.id);
    expect(backD.status).toBe(200);
    expect(backD.headers['content-disposition']).toBe(
      `attachment; filename="Handelsregister-Auszug-__.pdf"; filename*=UTF-8''${encodeURIComponent('Handelsregister-Auszug-证书.pdf')}`,
    );
    expect(Buffer.compare(backD.body as Buffer, d)).toBe(0);

    for (const [doc, bytes] of [
      [docA, a],
      [docB, b],
      [docC, c],
    ] as const) {
      for (const key of [merchantKey, tenantKey, platform]) {
        const back = await download(key, draftId, doc.id);
        expect(back.status).toBe(200);
        expect(back.headers['content-type']).toBe(doc.contentType);
        expect(back.headers['content-disposition']).toBe(
          `attachment; filename="${doc.filename}"; filename*=UTF-8''${encodeURIComponent(doc.filename)}`,
        );
        expect(Buffer.compare(back.body as Buffer, bytes)).toBe(0);
      }
    }
    const audits = await auditActions(docA.id);
    expect(audits).toEqual(['kyb_document.uploaded']);
    const entries = await h.as(tenantKey).get(`/v1/audit-entries?targetId=${docA.id}`);
    expect(JSON.stringify(entries.body)).not.toContain(a.subarray(0, 64).toString('base64'));
    expect(entries.body.data[0].after).toMatchObject({ sha256: docA.sha256, size: a.length });
  });

  test('over 10 MB, another type, or bytes that are not the declared type: 413/415/400 and nothing is stored', async () => {
    const before = await countDocuments();
    const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(10 * 1024 * 1024 - 8, 1)]);
    expect(big.length).toBe(10 * 1024 * 1024 + 1);
    expectProblem(await uploadRaw(merchantKey, draftId, big, 'application/pdf'), 413, 'PAYLOAD_TOO_LARGE');
    expectProblem(await uploadMultipart(merchantKey, draftId, big, 'application/pdf', 'big.pdf'), 413);
    expectProblem(await uploadRaw(merchantKey, draftId, Buffer.from('GIF89a....'), 'image/gif'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectProblem(
      await uploadMultipart(merchantKey, draftId, Buffer.from('hello'), 'text/plain', 'note.txt'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    // declared types whose content is something else
    expectProblem(await uploadRaw(merchantKey, draftId, png(), 'application/pdf'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectProblem(
      await uploadRaw(merchantKey, draftId, Buffer.from('MZ\x90\x00 an executable'), 'image/jpeg'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectProblem(await uploadMultipart(merchantKey, draftId, pdf(), 'image/png', 'fake.png'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    // empty, missing or unknown document type
    expectProblem(await uploadRaw(merchantKey, draftId, Buffer.alloc(0), 'application/pdf'), 400);
    expectProblem(
      await request(h.app)
        .post(`/v1/kyb-submissions/${draftId}/documents`)
        .set('Authorization', `Bearer ${merchantKey}`)
        .set('Content-Type', 'application/pdf')
        .send(pdf()),
      400,
    );
    const badType = await uploadRaw(merchantKey, draftId, pdf(), 'application/pdf', 'selfie');
    expectProblem(badType, 400);
    expect(badType.body.errors[0].path).toBe('query.type');
    expect(await countDocuments()).toEqual(before);
    expect((await h.as(merchantKey).get(`/v1/kyb-submissions/${draftId}`)).body.data.documents).toHaveLength(4);
  });

  test('another merchant (same company or not) and another tenant see nothing: 404', async () => {
    const sub = (await h.as(merchantKey).get(`/v1/kyb-submissions/${draftId}`)).body.data;
    const docId = sub.documents[0].id;
    for (const key of [sibling.key, stranger.key, foreign.key]) {
      expectProblem(await h.as(key).get(`/v1/kyb-submissions/${draftId}`), 404);
      expectProblem(await h.as(key).patch(`/v1/kyb-submissions/${draftId}`, { data: { legalName: 'Hijack' } }), 404);
      expectProblem(await h.as(key).post(`/v1/kyb-submissions/${draftId}/submit`), 404);
      expectProblem(await uploadRaw(key, draftId, pdf(), 'application/pdf'), 404);
      expectProblem(await download(key, draftId, docId), 404);
      const list = await h.as(key).get('/v1/kyb-submissions');
      expect(list.body.data.map((s: { id: string }) => s.id)).not.toContain(draftId);
    }
    // the sibling made no submission of its own: its company's latest is not one it may see
    expectProblem(await h.as(sibling.key).get('/v1/kyb-submissions/latest'), 404);
    for (const path of [`/v1/admin/kyb-submissions/${draftId}`, `/v1/kyb-submissions/${draftId}/documents/${docId}/content`]) {
      expectProblem(await h.as(other.secretKey).get(path), 404);
    }
    expectProblem(await h.as(other.secretKey).post(`/v1/admin/kyb-submissions/${draftId}/reject`, { rejectionReason: 'x' }), 404);
    expectProblem(
      await h.as(other.secretKey).post(`/v1/admin/kyb-submissions/${draftId}/documents/${docId}/verdict`, { verdict: 'accepted' }),
      404,
    );
    expect((await h.as(other.secretKey).get('/v1/admin/kyb-submissions')).body.data).toEqual([]);
    // a document id under another submission is 404 too
    const strangerSub = (await h.as(stranger.key).get('/v1/kyb-submissions/latest')).body.data;
    expectProblem(await download(tenantKey, strangerSub.id, docId), 404);
    expectProblem(await download(merchantKey, draftId, crypto.randomUUID()), 404);
    // merchants cannot use the reviewer operations
    expectProblem(await h.as(merchantKey).get('/v1/admin/kyb-submissions'), 403);
    expectProblem(await h.as(merchantKey).post(`/v1/admin/kyb-submissions/${draftId}/approve`, {}), 403);
  });

  test('submit moves to submitted, emits kyb.submitted to a tenant endpoint, and freezes data and documents', async () => {
    const endpoint = await h
      .as(tenantKey)
      .post('/v1/admin/webhook-endpoints', { url: 'https://hooks.example.test/kyb', events: ['kyb.submitted'] });
    expect(endpoint.status).toBe(201);
    h.clock.advance(1000);
    const res = await h.as(merchantKey).post(`/v1/kyb-submissions/${draftId}/submit`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'submitted', submittedAt: expect.any(String) });
    expect(res.body.data.documents).toHaveLength(4);

    const deliveries = await h
      .as(tenantKey)
      .get(`/v1/admin/webhook-deliveries?eventType=kyb.submitted&endpoint_id=${endpoint.body.data.id}`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.data).toHaveLength(1);
    expect(deliveries.body.data[0]).toMatchObject({ eventType: 'kyb.submitted', endpointId: endpoint.body.data.id, status: 'pending' });
    const event = await h.rt.db.models.Event.findOne({ where: { id: deliveries.body.data[0].eventId } });
    expect(event!.get('data')).toMatchObject({
      id: draftId,
      companyId: h.sandbox.companyId,
      merchantId: h.sandbox.merchantId,
      status: 'submitted',
    });

    expectProblem(
      await h.as(merchantKey).patch(`/v1/kyb-submissions/${draftId}`, { data: { legalName: 'Late' } }),
      409,
      'INVALID_STATE_TRANSITION',
    );
    expectProblem(await uploadRaw(merchantKey, draftId, pdf(), 'application/pdf'), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await h.as(merchantKey).post(`/v1/kyb-submissions/${draftId}/submit`), 409, 'INVALID_STATE_TRANSITION');
    expect(await auditActions(draftId)).toEqual([
      'kyb_submission.created',
      'kyb_submission.updated',
      'kyb_submission.updated',
      'kyb_submission.submitted',
    ]);
  });

  test('the reviewer lists and gets; approval needs every document judged and one accepted; approved is final', async () => {
    const list = await h.as(tenantKey).get(`/v1/admin/kyb-submissions?status=submitted&companyId=${h.sandbox.companyId}`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([draftId]);
    expect(
      (await h.as(tenantKey).get(`/v1/admin/kyb-submissions?merchantId=${stranger.id}`)).body.data.every(
        (s: { merchantId: string }) => s.merchantId === stranger.id,
      ),
    ).toBe(true);
    expect((await h.as(platform).get(`/v1/admin/kyb-submissions?merchantId=${h.sandbox.merchantId}`)).body.data).toHaveLength(1);
    expectProblem(await h.as(tenantKey).get('/v1/admin/kyb-submissions?status=nope'), 400);
    const got = await h.as(tenantKey).get(`/v1/admin/kyb-submissions/${draftId}`);
    expect(got.status).toBe(200);
    expect(got.body.data.status).toBe('submitted');
    const [a, b, c, d] = got.body.data.documents;

    const pending = await h.as(tenantKey).post(`/v1/admin/kyb-submissions/${draftId}/approve`, {});
    expectProblem(pending, 409, 'KYB_DOCUMENTS_NOT_ACCEPTED');
    expectProblem(await h.as(tenantKey).post(`/v1/admin/kyb-submissions/${draftId}/documents/${a.id}/verdict`, { verdict: 'maybe' }), 400);

    const first = await h
      .as(tenantKey)
      .post(`/v1/admin/kyb-submissions/${draftId}/documents/${a.id}/verdict`, { verdict: 'accepted', comment: 'Matches the register' });
    expect(first.status).toBe(200);
    expect(first.body.data.status).toBe('in_review');
    expect(first.body.data.reviewedBy).toBe(h.sandbox.tenantKey.id);
    expect(first.body.data.documents[0]).toMatchObject({
      verdict: 'accepted',
      verdictComment: 'Matches the register',
      verdictBy: h.sandbox.tenantKey.id,
    });
    await h
      .as(tenantKey)
      .post(`/v1/admin/kyb-submissions/${draftId}/documents/${b.id}/verdict`, { verdict: 'rejected', comment: 'Blurry' });
    expectProblem(await h.as(tenantKey).post(`/v1/admin/kyb-submissions/${draftId}/approve`, {}), 409, 'KYB_DOCUMENTS_NOT_ACCEPTED');
    await h.as(platform).post(`/v1/admin/kyb-submissions/${draftId}/documents/${c.id}/verdict`, { verdict: 'accepted' });
    expectProblem(await h.as(tenantKey).post(`/v1/admin/kyb-submissions/${draftId}/approve`, {}), 409, 'KYB_DOCUMENTS_NOT_ACCEPTED');
    await h.as(platform).post(`/v1/admin/kyb-submissions/${draftId}/documents/${d.id}/verdict`, { verdict: 'accepted' });

    expect(
      await companyHasApprovedKyb(
        operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: true }),
        h.sandbox.companyId,
      ),
    ).toBe(false);
    const approved = await h.as(tenantKey).post(`/v1/admin/kyb-submissions/${draftId}/approve`, { comment: 'All good' });
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({ status: 'approved', reviewerComment: 'All good', decidedAt: expect.any(String) });
    expect(
      await companyHasApprovedKyb(
        operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: true }),
        h.sandbox.companyId,
      ),
    ).toBe(true);
    expect(
      await companyHasApprovedKyb(
        operatorContext(h.rt, { level: 'tenant', tenantId: h.sandbox.tenantId, livemode: false }),
        stranger.companyId,
      ),
    ).toBe(false);

    for (const [path, body] of [
      ['approve', {}],
      ['reject', { rejectionReason: 'x' }],
      ['request-information', { message: 'x' }],
      [`documents/${a.id}/verdict`, { verdict: 'rejected' }],
    ] as const) {
      expectProblem(await h.as(tenantKey).post(`/v1/admin/kyb-submissions/${draftId}/${path}`, body), 409, 'INVALID_STATE_TRANSITION');
    }
    expectProblem(await h.as(merchantKey).post(`/v1/kyb-submissions/${draftId}/submit`), 409, 'INVALID_STATE_TRANSITION');
    expect(await auditActions(draftId)).toEqual([
      'kyb_submission.created',
      'kyb_submission.updated',
      'kyb_submission.updated',
      'kyb_submission.submitted',
      'kyb_submission.review_started',
      'kyb_submission.approved',
    ]);
    expect(await auditActions(b.id)).toEqual(['kyb_document.uploaded', 'kyb_document.rejected']);
    // a final submission lets the company open a new one
    const next = await h.as(merchantKey).post('/v1/kyb-submissions', {});
    expect(next.status).toBe(201);
    expect((await h.as(merchantKey).get('/v1/kyb-submissions/latest')).body.data.id).toBe(next.body.data.id);
  });
});

describe(`KYB review moves (${dialectName})`, () => {
  test('two merchants of one company opening drafts at once: one wins, the other is 409', async () => {
    const first = await newMerchant(h.sandbox.tenantId);
    const second = await newMerchant(h.sandbox.tenantId, first.companyId);
    const results = await Promise.all([first, second].map((m) => h.as(m.key).post('/v1/kyb-submissions', {})));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expectProblem(
      results.find((r) => r.status === 409)!,
      409,
      'KYB_SUBMISSION_OPEN',
    );
    const open = await h.as(tenantKey).get(`/v1/admin/kyb-submissions?companyId=${first.companyId}`);
    expect(open.body.data).toHaveLength(1);
  });

  test('request-information sends it back to the merchant, who updates, uploads and submits again', async () => {
    const { merchant, id } = await submitted();
    expectProblem(await h.as(tenantKey).post(`/v1/admin/kyb-submissions/${id}/request-information`, {}), 400);
    const asked = await h
      .as(tenantKey)
      .post(`/v1/admin/kyb-submissions/${id}/request-information`, { message: 'Please add a bank statement.' });
    expect(asked.status).toBe(200);
    expect(asked.body.data).toMatchObject({ status: 'information_requested', informationRequest: 'Please add a bank statement.' });
    expectProblem(await h.as(tenantKey).post(`/v1/admin/kyb-submissions/${id}/approve`, {}), 409, 'INVALID_STATE_TRANSITION');
    const docId = asked.body.data.documents[0].id;
    expectProblem(
      await h.as(tenantKey).post(`/v1/admin/kyb-submissions/${id}/documents/${docId}/verdict`, { verdict: 'accepted' }),
      409,
      'INVALID_STATE_TRANSITION',
    );

    expect((await h.as(merchant.key).patch(`/v1/kyb-submissions/${id}`, { data: { vatNumber: 'DE123456789' } })).status).toBe(200);
    const up = await uploadMultipart(merchant.key, id, pdf(), 'application/pdf', 'bank.pdf', 'bank_statement');
    expect(up.status).toBe(201);
    const again = await h.as(merchant.key).post(`/v1/kyb-submissions/${id}/submit`);
    expect(again.status).toBe(200);
    expect(again.body.data.status).toBe('submitted');
    expect(again.body.data.documents.map((d: { documentType: string }) => d.documentType)).toEqual([
      'certificate_of_incorporation',
      'bank_statement',
    ]);
  });

  test('reject needs a reason, is final, and approve from submitted works once documents are judged', async () => {
    const r = await submitted();
    expectProblem(await h.as(tenantKey).post(`/v1/admin/kyb-submissions/${r.id}/reject`, {}), 400);
    expectProblem(await h.as(tenantKey).post(`/v1/admin/kyb-submissions/${r.id}/reject`, { rejectionReason: '' }), 400);
    const rejected = await h.as(platform).post(`/v1/admin/kyb-submissions/${r.id}/reject`, { rejectionReason: 'Registry mismatch' });
    expect(rejected.status).toBe(200);
    expect(rejected.body.data).toMatchObject({ status: 'rejected', rejectionReason: 'Registry mismatch', decidedAt: expect.any(String) });
    expectProblem(
      await h.as(tenantKey).post(`/v1/admin/kyb-submissions/${r.id}/request-information`, { message: 'x' }),
      409,
      'INVALID_STATE_TRANSITION',
    );
    expectProblem(
      await h.as(r.merchant.key).patch(`/v1/kyb-submissions/${r.id}`, { data: { legalName: 'x' } }),
      409,
      'INVALID_STATE_TRANSITION',
    );
    expect(await auditActions(r.id)).toEqual(['kyb_submission.created', 'kyb_submission.submitted', 'kyb_submission.rejected']);

    // a draft cannot be reviewed
    const d = await readyDraft();
    expectProblem(await h.as(tenantKey).post(`/v1/admin/kyb-submissions/${d.id}/approve`, {}), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(
      await h.as(tenantKey).post(`/v1/admin/kyb-submissions/${d.id}/reject`, { rejectionReason: 'x' }),
      409,
      'INVALID_STATE_TRANSITION',
    );
    expectProblem(
      await h.as(tenantKey).post(`/v1/admin/kyb-submissions/${d.id}/documents/${d.documentId}/verdict`, { verdict: 'accepted' }),
      409,
      'INVALID_STATE_TRANSITION',
    );
  });
});

describe(`KYB documents in filesystem storage (${dialectName})`, () => {
  // the storage setting is the runtime's configuration (PAYPLANE_KYB_STORAGE and PAYPLANE_HOME at start)
  const saved = { storage: 'database' as 'database' | 'filesystem', home: '' };
  let home: string;
  beforeAll(() => {
    saved.storage = h.rt.config.kybStorage;
    saved.home = h.rt.config.home;
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-kyb-'));
    h.rt.config.kybStorage = 'filesystem';
    h.rt.config.home = home;
  });
  afterAll(() => {
    h.rt.config.kybStorage = saved.storage;
    h.rt.config.home = saved.home;
    fs.rmSync(home, { recursive: true, force: true });
  });

  test('files land under <home>/kyb-documents/<tenant>/<document> with mode 0600, sealed, and come back byte for byte', async () => {
    const merchant = await newMerchant(h.sandbox.tenantId);
    const sub = (await h.as(merchant.key).post('/v1/kyb-submissions', {})).body.data;
    const before = await countDocuments();
    const bytes = pdf(100_000);
    const raw = await uploadRaw(merchant.key, sub.id, bytes, 'application/pdf', 'certificate_of_incorporation', 'c.pdf');
    expect(raw.status).toBe(201);
    const multiBytes = jpeg(5000);
    const multi = await uploadMultipart(merchant.key, sub.id, multiBytes, 'image/jpeg', 'id.jpg', 'ubo_identity');
    expect(multi.status).toBe(201);
    const after = await countDocuments();
    expect(after).toEqual({ docs: before.docs + 2, contents: before.contents });
    const [docA, docB] = multi.body.data.documents;
    const file = path.join(home, 'kyb-documents', h.sandbox.tenantId, docA.id);
    // sealed under the master key (issue 20 item 11): the file is not the document
    expect(fs.readFileSync(file).subarray(0, 8).toString('latin1')).toBe('PPSEAL1\0');
    expect(fs.readFileSync(file).includes(bytes.subarray(9, 60))).toBe(false);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.compare((await download(merchant.key, sub.id, docA.id)).body as Buffer, bytes)).toBe(0);
    expect(Buffer.compare((await download(tenantKey, sub.id, docB.id)).body as Buffer, multiBytes)).toBe(0);

    // a rejected upload leaves no file behind
    expectProblem(await uploadRaw(merchant.key, sub.id, png(), 'image/jpeg'), 415);
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual([docA.id, docB.id].sort());

    // corruption at rest is detected, not served
    const sealed = fs.readFileSync(file);
    fs.writeFileSync(file, Buffer.concat([sealed.subarray(0, -1), Buffer.from([sealed[sealed.length - 1] ^ 0xff])]));
    const corrupt = await download(merchant.key, sub.id, docA.id);
    expectProblem(corrupt, 500, 'KYB_DOCUMENT_CORRUPTED');

    // documents stored in the database stay readable when the setting changes
    h.rt.config.kybStorage = 'database';
    const dbDoc = await uploadRaw(merchant.key, sub.id, png(), 'image/png', 'other', 'p.png');
    h.rt.config.kybStorage = 'filesystem';
    const pngDoc = dbDoc.body.data.documents[2];
    expect((await download(merchant.key, sub.id, pngDoc.id)).status).toBe(200);
    expect((await download(merchant.key, sub.id, docB.id)).status).toBe(200);
  });
});

describe(`malformed ids (${dialectName})`, () => {
  test('a document id that is not a uuid is 404 on download and verdict, never 500', async () => {
    const sub = await h.as(h.sandbox.merchantKey.secretKey).post('/v1/kyb-submissions', {});
    const id =
      sub.status === 201 ? sub.body.data.id : (await h.as(h.sandbox.merchantKey.secretKey).get('/v1/kyb-submissions/latest')).body.data.id;
    expectProblem(await h.as(h.sandbox.merchantKey.secretKey).get(`/v1/kyb-submissions/${id}/documents/not-a-uuid/content`), 404);
    expectProblem(
      await h
        .as(h.sandbox.tenantKey.secretKey)
        .post(`/v1/admin/kyb-submissions/${id}/documents/not-a-uuid/verdict`, { verdict: 'accepted' }),
      404,
    );
  });
});

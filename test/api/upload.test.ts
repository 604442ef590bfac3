import crypto from 'node:crypto';
import request from 'supertest';
import { z } from '../../src/api/zod';
import { createApp } from '../../src/http/app';
import { defineOperation, type UploadedFile } from '../../src/api/registry';
import { useApiHarness, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { NotFoundError } from '../../src/domain/errors';

// Operations declared only for this test: the upload and download machinery of the registry.
const stored = new Map<string, UploadedFile>();
const uploadOp = defineOperation({
  id: 'testUpload',
  method: 'post',
  path: '/v1/test-files',
  levels: ['M'],
  permission: 'compliance:kyb:manage',
  tag: 'Test',
  summary: 'upload',
  kind: 'single',
  status: 201,
  upload: { maxBytes: 1024, types: ['application/pdf', 'image/png'] },
  response: z.object({ id: z.string(), contentType: z.string(), filename: z.string().nullable(), size: z.number() }),
  handler: async (_ctx, { body }) => {
    const file = body as unknown as UploadedFile;
    const id = crypto.randomUUID();
    stored.set(id, file);
    return { id, contentType: file.contentType, filename: file.filename, size: file.bytes.length };
  },
});
const downloadOp = defineOperation({
  id: 'testDownload',
  method: 'get',
  path: '/v1/test-files/{id}',
  levels: ['M'],
  permission: 'compliance:kyb:view',
  tag: 'Test',
  summary: 'download',
  kind: 'file',
  fileTypes: ['application/pdf', 'image/png'],
  params: z.object({ id: z.string() }),
  response: z.object({}),
  handler: async (_ctx, { params }) => {
    const file = stored.get(params.id);
    if (!file) throw new NotFoundError('file', params.id);
    return { contentType: file.contentType, filename: file.filename ?? 'file', bytes: file.bytes };
  },
});

let app: ReturnType<typeof createApp>;
const h = useApiHarness();
beforeAll(async () => {
  app = createApp(h.rt, { operations: [uploadOp, downloadOp] });
});

const auth = () => `Bearer ${h.sandbox.merchantKey.secretKey}`;
const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), crypto.randomBytes(500)]);

describe(`file uploads and downloads (${dialectName})`, () => {
  test('a raw upload and a multipart upload come back byte for byte', async () => {
    const raw = await request(app)
      .post('/v1/test-files')
      .set('Authorization', auth())
      .set('Content-Type', 'application/pdf')
      .set('Content-Disposition', 'attachment; filename="statement.pdf"')
      .send(pdf);
    expect(raw.status).toBe(201);
    expect(raw.body.data).toMatchObject({ contentType: 'application/pdf', filename: 'statement.pdf', size: pdf.length });
    const back = await request(app)
      .get(`/v1/test-files/${raw.body.data.id}`)
      .set('Authorization', auth())
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    expect(back.status).toBe(200);
    expect(back.headers['content-type']).toBe('application/pdf');
    expect(back.headers['content-disposition']).toBe(`attachment; filename="statement.pdf"; filename*=UTF-8''statement.pdf`);
    expect(Buffer.compare(back.body as Buffer, pdf)).toBe(0);

    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), crypto.randomBytes(100)]);
    const multi = await request(app)
      .post('/v1/test-files')
      .set('Authorization', auth())
      .attach('file', png, { filename: 'lögo证书.png', contentType: 'image/png' });
    expect(multi.status).toBe(201);
    expect(multi.body.data).toMatchObject({ contentType: 'image/png', filename: 'lögo证书.png', size: png.length });
    const named = await request(app).get(`/v1/test-files/${multi.body.data.id}`).set('Authorization', auth());
    expect(named.headers['content-disposition']).toBe(
      `attachment; filename="l_go__.png"; filename*=UTF-8''${encodeURIComponent('lögo证书.png')}`,
    );
    expect(Buffer.compare(stored.get(multi.body.data.id)!.bytes, png)).toBe(0);
  });

  test('a filename that only looks percent-encoded is kept as sent', async () => {
    const res = await request(app)
      .post('/v1/test-files')
      .set('Authorization', auth())
      .set('Content-Type', 'application/pdf')
      .set('Content-Disposition', 'attachment; filename="100%.pdf"')
      .send(pdf);
    expect(res.status).toBe(201);
    expect(res.body.data.filename).toBe('100%.pdf');
  });

  test('too large is 413, another type 415, nothing 400; nothing is stored', async () => {
    const before = stored.size;
    const big = Buffer.alloc(1025, 1);
    expectProblem(
      await request(app).post('/v1/test-files').set('Authorization', auth()).set('Content-Type', 'application/pdf').send(big),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expectProblem(
      await request(app)
        .post('/v1/test-files')
        .set('Authorization', auth())
        .attach('file', big, { filename: 'x.pdf', contentType: 'application/pdf' }),
      413,
    );
    expectProblem(
      await request(app).post('/v1/test-files').set('Authorization', auth()).set('Content-Type', 'text/plain').send('hello'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectProblem(
      await request(app)
        .post('/v1/test-files')
        .set('Authorization', auth())
        .attach('file', Buffer.from('x'), { filename: 'x.gif', contentType: 'image/gif' }),
      415,
    );
    expectProblem(
      await request(app).post('/v1/test-files').set('Authorization', auth()).set('Content-Type', 'application/pdf'),
      400,
      'EMPTY_UPLOAD',
    );
    expectProblem(await request(app).post('/v1/test-files').set('Authorization', auth()).field('note', 'no file'), 400, 'EMPTY_UPLOAD');
    // authorization comes before the body is read
    expectProblem(await request(app).post('/v1/test-files').set('Content-Type', 'application/pdf').send(pdf), 401);
    expect(stored.size).toBe(before);
  });

  test('an upload replays by Idempotency-Key and refuses another file under the same key', async () => {
    const send = (bytes: Buffer) =>
      request(app)
        .post('/v1/test-files')
        .set('Authorization', auth())
        .set('Content-Type', 'application/pdf')
        .set('Idempotency-Key', 'up-1')
        .send(bytes);
    const first = await send(pdf);
    const again = await send(pdf);
    expect(again.body).toEqual(first.body);
    expectProblem(await send(Buffer.concat([pdf, Buffer.from('x')])), 409, 'IDEMPOTENCY_KEY_REUSED');
  });
});

import crypto from 'node:crypto';
import type { Request } from 'express';
import type Busboy from 'busboy';
import { RequestRejectedError, ValidationError } from '../domain/errors';
import type { UploadSpec, UploadedFile } from '../api/registry';

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

function tooLarge(spec: UploadSpec): RequestRejectedError {
  return new RequestRejectedError(413, 'PAYLOAD_TOO_LARGE', `The file is larger than ${spec.maxBytes} bytes.`);
}

function unsupported(type: string, spec: UploadSpec): RequestRejectedError {
  return new RequestRejectedError(
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    `${type || 'A body without Content-Type'} is not accepted; send ${spec.types.join(', ')} (raw, or as multipart/form-data).`,
  );
}

/** The filename of a raw upload: Content-Disposition's filename, else the `filename` query parameter. */
function rawFilename(req: Request): string | null {
  const disposition = req.get('content-disposition') ?? '';
  const m = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
  if (m) {
    try {
      return decodeURIComponent(m[1]);
    } catch {
      return m[1]; // not percent-encoded after all (e.g. "100%.pdf"): keep it as sent
    }
  }
  return typeof req.query.filename === 'string' ? req.query.filename : null;
}

/**
 * Reads an upload without buffering more than the cap: a raw body of an accepted type, or the first file part of
 * multipart/form-data. Too large is 413, another type 415, nothing at all 400.
 */
export async function readUpload(req: Request, spec: UploadSpec): Promise<UploadedFile> {
  const type = mediaType(req.get('content-type'));
  if (type === 'multipart/form-data') return readMultipart(req, spec);
  if (!spec.types.includes(type)) throw unsupported(type, spec);
  const declared = Number(req.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > spec.maxBytes) throw tooLarge(spec);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > spec.maxBytes) {
      req.unpipe?.();
      throw tooLarge(spec);
    }
    chunks.push(chunk);
  }
  if (size === 0) throw ValidationError.field('body', 'is empty: send the file', 'EMPTY_UPLOAD');
  return { contentType: type, filename: rawFilename(req), bytes: Buffer.concat(chunks) };
}

function readMultipart(req: Request, spec: UploadSpec): Promise<UploadedFile> {
  return new Promise((resolve, reject) => {
    let busboy: Busboy.Busboy;
    try {
      // busboy is loaded on the first multipart upload
      busboy = (require('busboy') as typeof Busboy)({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { files: 1, fileSize: spec.maxBytes, fields: 20 },
      });
    } catch {
      reject(ValidationError.field('body', 'is not valid multipart/form-data', 'INVALID_MULTIPART'));
      return;
    }
    let result: UploadedFile | undefined;
    let failure: Error | undefined;
    busboy.on('file', (_name, stream, info) => {
      // an unterminated form destroys the open file stream with busboy's error: handled by busboy's 'error' below
      stream.on('error', () => {});
      const type = info.mimeType.toLowerCase();
      if (!spec.types.includes(type)) {
        failure ??= unsupported(type, spec);
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => {
        failure ??= tooLarge(spec);
      });
      stream.on('end', () => {
        if (!failure && !result) result = { contentType: type, filename: info.filename || null, bytes: Buffer.concat(chunks) };
      });
    });
    busboy.on('error', () => reject(ValidationError.field('body', 'is not valid multipart/form-data', 'INVALID_MULTIPART')));
    busboy.on('close', () => {
      if (failure) return reject(failure);
      if (!result || result.bytes.length === 0) return reject(ValidationError.field('body', 'holds no file part', 'EMPTY_UPLOAD'));
      resolve(result);
    });
    req.pipe(busboy);
  });
}

/** What identifies an upload for Idempotency-Key comparison (never the bytes themselves). */
export function uploadFingerprint(file: UploadedFile): Record<string, unknown> {
  return {
    contentType: file.contentType,
    filename: file.filename,
    sha256: crypto.createHash('sha256').update(file.bytes).digest('hex'),
    size: file.bytes.length,
  };
}

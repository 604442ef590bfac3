import crypto from 'node:crypto';
import type { AppConfig } from '../../config';
import fs from 'node:fs';
import path from 'node:path';
import { inTransaction, type CallerContext } from '../../domain/context';
import { ConflictError, InternalError, NotFoundError, RequestRejectedError } from '../../domain/errors';
import { isUuid, scoped } from '../../db/scoped';
import type { KybDocumentRow, KybDocumentType } from '../../db/models';
import { newId } from '../../util/ids';
import { isSealedBytes } from '../../util/encryption';
import { auditRecord } from '../audit/changes';
import { EDITABLE, getSubmission, KYB_DOCUMENT, toKybDocument, type KybSubmission } from './submissions';

/**
 * KYB document bytes: PDF, PNG or JPEG (checked by magic bytes as well as by the declared type), kept with a
 * SHA-256 digest either in the database (kyb_document_contents, the default) or as files under
 * <PAYPLANE_HOME>/kyb-documents/<tenantId>/<documentId> (mode 0600) when PAYPLANE_KYB_STORAGE=filesystem.
 * Either way the bytes are sealed under the master key (Sealer.sealBytes, AES-256-GCM bound to the document id), as
 * terminal credentials are: identity documents and bank statements are never in clear at rest. Migration 0022 sealed
 * the rows stored before; a file written before is still read as it is (it starts with the document's own magic).
 * Every read checks size and digest; a mismatch, or sealed bytes that do not open, is corruption (500), never served.
 */

export const KYB_MAX_BYTES = 10 * 1024 * 1024;
export const KYB_CONTENT_TYPES = ['application/pdf', 'image/png', 'image/jpeg'];

const MAGIC: Record<string, Buffer> = {
  'application/pdf': Buffer.from('%PDF'),
  'image/png': Buffer.from([0x89, 0x50, 0x4e, 0x47]),
  'image/jpeg': Buffer.from([0xff, 0xd8, 0xff]),
};

const EXTENSIONS: Record<string, string> = { 'application/pdf': 'pdf', 'image/png': 'png', 'image/jpeg': 'jpg' };

export type KybStorage = AppConfig['kybStorage'];

/** The storage folder of filesystem mode: <home>/kyb-documents. */
export function kybStorageRoot(config: AppConfig): string {
  return path.join(config.home, 'kyb-documents');
}

function filePath(config: AppConfig, tenantId: string, documentId: string): string {
  return path.join(kybStorageRoot(config), tenantId, documentId);
}

export function sha256(bytes: Buffer): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

export function matchesMagic(contentType: string, bytes: Buffer): boolean {
  const magic = MAGIC[contentType];
  return Boolean(magic) && bytes.length >= magic.length && bytes.subarray(0, magic.length).equals(magic);
}

function cleanFilename(name: string | null | undefined, type: string, contentType: string): string {
  const base = (name ?? '')
    .split(/[\\/]/)
    .pop()!
    .replace(/[\x00-\x1f\x7f"]/g, '_')
    .trim()
    .slice(0, 255);
  return base || `${type}.${EXTENSIONS[contentType] ?? 'bin'}`;
}

export interface UploadInput {
  contentType: string;
  filename: string | null;
  bytes: Buffer;
  documentType: KybDocumentType;
  /** the `filename` query parameter, used when the upload itself names none */
  fallbackFilename?: string;
}

/** Uploads one document to a draft or information_requested submission of the caller. */
export async function uploadDocument(ctx: CallerContext, submissionId: string, input: UploadInput): Promise<KybSubmission> {
  if (!KYB_CONTENT_TYPES.includes(input.contentType)) {
    throw new RequestRejectedError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `${input.contentType} is not accepted; send ${KYB_CONTENT_TYPES.join(', ')}.`,
    );
  }
  if (input.bytes.length > KYB_MAX_BYTES)
    throw new RequestRejectedError(413, 'PAYLOAD_TOO_LARGE', `The file is larger than ${KYB_MAX_BYTES} bytes.`);
  if (!matchesMagic(input.contentType, input.bytes)) {
    throw new RequestRejectedError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `The file's content is not ${input.contentType} (its leading bytes do not match the declared type).`,
    );
  }
  return inTransaction(ctx, async (tx) => {
    const submission = await scoped(tx, tx.db.models.KybSubmission).get(submissionId, { lock: true });
    if (!EDITABLE.includes(submission.status)) {
      throw new ConflictError('INVALID_STATE_TRANSITION', `Documents cannot be added to a KYB submission in status ${submission.status}.`, {
        hint: `Uploads apply to submissions in status ${EDITABLE.join(' or ')}.`,
      });
    }
    const id = newId();
    const storage = tx.config.kybStorage;
    const digest = sha256(input.bytes);
    const sealed = tx.sealer.sealBytes(input.bytes, id);
    let written: string | null = null;
    try {
      if (storage === 'filesystem') {
        written = filePath(tx.config, submission.tenantId, id);
        fs.mkdirSync(path.dirname(written), { recursive: true, mode: 0o700 });
        fs.writeFileSync(written, sealed, { mode: 0o600, flag: 'wx' });
      } else {
        await scoped(tx, tx.db.models.KybDocumentContent).create({
          id,
          tenantId: submission.tenantId,
          merchantId: submission.merchantId,
          content: sealed,
        });
      }
      const doc = await scoped(tx, tx.db.models.KybDocument).create({
        id,
        tenantId: submission.tenantId,
        merchantId: submission.merchantId,
        submissionId: submission.id,
        documentType: input.documentType,
        filename: cleanFilename(input.filename ?? input.fallbackFilename, input.documentType, input.contentType),
        contentType: input.contentType,
        size: input.bytes.length,
        sha256: digest,
        storage,
        verdict: 'pending',
        verdictComment: null,
        verdictAt: null,
        verdictBy: null,
        uploadedBy: tx.actor.id,
      });
      await auditRecord(tx, KYB_DOCUMENT, doc, 'kyb_document.uploaded', { after: toKybDocument(doc) });
    } catch (error) {
      if (written) fs.rmSync(written, { force: true });
      throw error;
    }
    return getSubmission(tx, submission.id);
  });
}

/** The bytes of one document of a submission the caller sees, checked against the stored size and digest. */
export async function downloadDocument(
  ctx: CallerContext,
  submissionId: string,
  documentId: string,
): Promise<{ contentType: string; filename: string; bytes: Buffer; document: KybDocumentRow }> {
  const submission = await scoped(ctx, ctx.db.models.KybSubmission).get(submissionId);
  const doc = isUuid(documentId)
    ? await scoped(ctx, ctx.db.models.KybDocument).findOne({ id: documentId, submissionId: submission.id })
    : null;
  if (!doc) throw new NotFoundError('KYB document', documentId);
  let stored: Buffer;
  if (doc.storage === 'filesystem') {
    try {
      stored = fs.readFileSync(filePath(ctx.config, doc.tenantId, doc.id));
    } catch {
      throw new InternalError(`The stored file of KYB document ${doc.id} is missing.`, 'KYB_DOCUMENT_MISSING');
    }
  } else {
    const content = await scoped(ctx, ctx.db.models.KybDocumentContent).findOne({ id: doc.id });
    if (!content) throw new InternalError(`The stored bytes of KYB document ${doc.id} are missing.`, 'KYB_DOCUMENT_MISSING');
    stored = Buffer.isBuffer(content.content) ? content.content : Buffer.from(content.content as unknown as Uint8Array);
  }
  const bytes = openStored(ctx, doc.id, stored);
  if (!bytes || bytes.length !== doc.size || sha256(bytes) !== doc.sha256) {
    throw new InternalError(`KYB document ${doc.id} is corrupted: its bytes no longer match the stored SHA-256.`, 'KYB_DOCUMENT_CORRUPTED');
  }
  // the download's Content-Disposition header takes ASCII only: other characters become _
  return { contentType: doc.contentType, filename: doc.filename, bytes, document: doc };
}

/** The document's bytes from what is stored: sealed bytes opened (null when they do not open), a file of before 0022 as it is. */
function openStored(ctx: Pick<CallerContext, 'sealer'>, documentId: string, stored: Buffer): Buffer | null {
  if (!isSealedBytes(stored)) return stored;
  try {
    return ctx.sealer.openBytes(stored, documentId);
  } catch {
    return null;
  }
}

import { DataTypes, type Sequelize } from 'sequelize';
import { define, pk, stamps, UUID, STRING, TEXT, JSONT, DATE, INTEGER, type RowModel, type Timestamps } from '../model-kit';

// KYB submissions and documents.

export type KybStatus = 'draft' | 'submitted' | 'in_review' | 'information_requested' | 'approved' | 'rejected';

export interface KybSubmissionRow extends Timestamps {
  id: string;
  tenantId: string;
  companyId: string;
  /** the submitting merchant */
  merchantId: string;
  status: KybStatus;
  data: Record<string, unknown>;
  reviewerComment: string | null;
  rejectionReason: string | null;
  informationRequest: string | null;
  submittedAt: Date | null;
  reviewedAt: Date | null;
  reviewedBy: string | null;
  decidedAt: Date | null;
  /** companyId while the submission is open, null once approved or rejected (one open submission per company) */
  openCompanyId: string | null;
}

/** Document types a KYB submission may carry. */
export const KYB_DOCUMENT_TYPES = [
  'certificate_of_incorporation',
  'articles_of_association',
  'shareholder_register',
  'proof_of_address',
  'ubo_identity',
  'director_identity',
  'bank_statement',
  'tax_certificate',
  'license',
  'other',
] as const;
export type KybDocumentType = (typeof KYB_DOCUMENT_TYPES)[number];

export type KybDocumentVerdict = 'pending' | 'accepted' | 'rejected';

export interface KybDocumentRow extends Timestamps {
  id: string;
  tenantId: string;
  merchantId: string;
  submissionId: string;
  documentType: KybDocumentType;
  filename: string;
  contentType: string;
  size: number;
  /** hex SHA-256 of the bytes, checked on every read */
  sha256: string;
  /** where the bytes are: the kyb_document_contents table, or a file under <home>/kyb-documents/<tenantId>/<id> */
  storage: 'database' | 'filesystem';
  verdict: KybDocumentVerdict;
  verdictComment: string | null;
  verdictAt: Date | null;
  verdictBy: string | null;
  uploadedBy: string | null;
}

/** The bytes of a document stored in the database (id = the document's id), sealed under the master key (Sealer.sealBytes). */
export interface KybDocumentContentRow {
  id: string;
  tenantId: string;
  merchantId: string;
  content: Buffer;
  createdAt: Date;
  updatedAt: Date;
}

export interface KybModels {
  KybSubmission: RowModel<KybSubmissionRow>;
  KybDocument: RowModel<KybDocumentRow>;
  KybDocumentContent: RowModel<KybDocumentContentRow>;
}

export function defineKybModels(sequelize: Sequelize): KybModels {
  return {
    KybSubmission: define<KybSubmissionRow>(
      sequelize,
      'KybSubmission',
      'kyb_submissions',
      {
        id: pk,
        tenantId: UUID,
        companyId: UUID,
        merchantId: UUID,
        status: STRING,
        data: JSONT,
        reviewerComment: TEXT,
        rejectionReason: TEXT,
        informationRequest: TEXT,
        submittedAt: DATE,
        reviewedAt: DATE,
        reviewedBy: STRING,
        decidedAt: DATE,
        openCompanyId: UUID,
        ...stamps,
      },
      { resource: 'KYB submission', tenant: 'tenantId', merchant: 'merchantId', mode: null },
    ),
    KybDocument: define<KybDocumentRow>(
      sequelize,
      'KybDocument',
      'kyb_documents',
      {
        id: pk,
        tenantId: UUID,
        merchantId: UUID,
        submissionId: UUID,
        documentType: STRING,
        filename: STRING,
        contentType: STRING,
        size: INTEGER,
        sha256: STRING,
        storage: STRING,
        verdict: STRING,
        verdictComment: TEXT,
        verdictAt: DATE,
        verdictBy: STRING,
        uploadedBy: STRING,
        ...stamps,
      },
      { resource: 'KYB document', tenant: 'tenantId', merchant: 'merchantId', mode: null },
    ),
    KybDocumentContent: define<KybDocumentContentRow>(
      sequelize,
      'KybDocumentContent',
      'kyb_document_contents',
      { id: pk, tenantId: UUID, merchantId: UUID, content: DataTypes.BLOB, createdAt: DATE, updatedAt: DATE },
      { resource: 'KYB document content', tenant: 'tenantId', merchant: 'merchantId', mode: null, softDelete: false },
    ),
  };
}

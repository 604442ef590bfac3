import { z } from '../zod';
import { refersTo, notChecked } from '../references';
import { KYB_DOCUMENT_TYPES } from '../../db/models/kyb';
import { Country, Email, NullableTimestamp, Timestamp, listQuery } from '../common';

export const KybStatus = z.enum(['draft', 'submitted', 'in_review', 'information_requested', 'approved', 'rejected']);
export const DocumentVerdict = z.enum(['pending', 'accepted', 'rejected']);

export const DocumentType = z.enum(KYB_DOCUMENT_TYPES);

const text = (max: number) => z.string().trim().min(1).max(max);
const IsoDate = z.iso.date({ error: 'must be a date (YYYY-MM-DD)' });

const Address = z
  .strictObject({
    line1: text(200).optional(),
    line2: text(200).optional(),
    city: text(100).optional(),
    postalCode: text(20).optional(),
    region: text(100).optional(),
    country: Country.optional(),
  })
  .openapi('KybAddress');

const Owner = z
  .strictObject({
    name: text(200).optional(),
    dateOfBirth: IsoDate.optional(),
    nationality: Country.optional(),
    ownershipPercent: z.number().min(0).max(100).optional().openapi({ description: 'Share of ownership, 0 to 100.' }),
    role: text(100).optional(),
  })
  .openapi('KybOwner');

const Director = z
  .strictObject({ name: text(200).optional(), dateOfBirth: IsoDate.optional(), nationality: Country.optional() })
  .openapi('KybDirector');

const dataFields = {
  legalName: text(300),
  tradingName: text(300),
  registrationNumber: text(100),
  country: Country,
  incorporationDate: IsoDate,
  businessType: text(100),
  industry: text(200),
  taxId: notChecked("the company's tax id (text)", text(100)),
  vatNumber: text(100),
  website: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048),
  contactEmail: Email,
  contactPhone: text(50),
  registeredAddress: Address,
  operatingAddress: Address,
  owners: z.array(Owner).max(50).openapi({ description: 'Ultimate beneficial owners.' }),
  directors: z.array(Director).max(50),
};

/**
 * The business data of a submission. Every field is optional while drafting; submit requires legalName,
 * registrationNumber, country, registeredAddress (line1, city, postalCode, country) and at least one owner with
 * a name and ownershipPercent.
 */
export const KybData = z
  .strictObject(
    Object.fromEntries(Object.entries(dataFields).map(([k, v]) => [k, v.optional()])) as {
      [K in keyof typeof dataFields]: z.ZodOptional<(typeof dataFields)[K]>;
    },
  )
  .openapi('KybData');

/** PATCH data: the given top-level fields replace the stored ones; null removes a field. */
export const KybDataPatch = z
  .strictObject(
    Object.fromEntries(Object.entries(dataFields).map(([k, v]) => [k, v.nullable().optional()])) as {
      [K in keyof typeof dataFields]: z.ZodOptional<z.ZodNullable<(typeof dataFields)[K]>>;
    },
  )
  .openapi('KybDataPatch');

export const CreateKybBody = z.strictObject({ data: KybData.optional() });
export const UpdateKybBody = z.strictObject({
  data: KybDataPatch.openapi({ description: 'Top-level fields given replace the stored ones; null removes one.' }),
});

export const KybDocumentSchema = z
  .object({
    id: z.string().uuid(),
    submissionId: z.string().uuid(),
    documentType: DocumentType,
    filename: z.string(),
    contentType: z.string(),
    size: z.number().int(),
    sha256: z.string().openapi({ description: 'Hex SHA-256 of the bytes; checked on every download.' }),
    verdict: DocumentVerdict,
    verdictComment: z.string().nullable(),
    verdictAt: NullableTimestamp,
    verdictBy: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .strict()
  .openapi('KybDocument');

export const KybSubmissionSchema = z
  .object({
    id: z.string().uuid(),
    tenantId: z.string().uuid(),
    companyId: z.string().uuid(),
    merchantId: z.string().uuid().openapi({ description: 'The submitting merchant.' }),
    status: KybStatus,
    data: z.record(z.string(), z.unknown()).openapi({ description: 'The business data (KybData).' }),
    reviewerComment: z.string().nullable(),
    rejectionReason: z.string().nullable(),
    informationRequest: z.string().nullable(),
    submittedAt: NullableTimestamp,
    reviewedAt: NullableTimestamp,
    reviewedBy: z.string().nullable(),
    decidedAt: NullableTimestamp,
    documents: z.array(KybDocumentSchema),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  })
  .strict()
  .openapi('KybSubmission');

export const MerchantListQuery = listQuery({ status: KybStatus.optional() });
export const ReviewerListQuery = listQuery({
  status: KybStatus.optional(),
  companyId: refersTo('company', z.string().uuid()).optional(),
  merchantId: refersTo('merchant', z.string().uuid()).optional(),
});

export const UploadQuery = z.object({
  type: DocumentType.openapi({ description: 'What the document is.' }),
  filename: z.string().min(1).max(255).optional().openapi({ description: 'Name of a raw upload when Content-Disposition gives none.' }),
});

export const DocumentParams = z.object({ id: z.string().min(1), documentId: z.string().min(1) });

export const ApproveBody = z.strictObject({ comment: text(2000).optional() });
export const RejectBody = z.strictObject({ rejectionReason: text(2000), comment: text(2000).optional() });
export const RequestInformationBody = z.strictObject({ message: text(2000) });
export const VerdictBody = z.strictObject({ verdict: z.enum(['accepted', 'rejected']), comment: text(2000).optional() });

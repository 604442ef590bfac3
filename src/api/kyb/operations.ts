import { defineOperation, type Operation, type UploadedFile } from '../registry';
import { idParams } from '../common';
import * as kyb from '../../services/kyb/submissions';
import * as kybDocuments from '../../services/kyb/documents';
import {
  ApproveBody, CreateKybBody, DocumentParams, KybDocumentSchema, KybSubmissionSchema, MerchantListQuery, RejectBody,
  RequestInformationBody, ReviewerListQuery, UpdateKybBody, UploadQuery, VerdictBody,
} from './schemas';

const tag = 'KYB';

const STATES =
  'States: draft -> submitted (submit) -> in_review (the first document verdict) -> approved, rejected or information_requested; ' +
  'information_requested -> submitted (submit again, after updating data or uploading documents). approve, reject and ' +
  'request-information also apply straight from submitted. approved and rejected are final. Any other move is 409 INVALID_STATE_TRANSITION.';

/** KYB submissions, documents and review. */
export const kybOperations: Operation[] = [
  defineOperation({
    id: 'createKybSubmission', method: 'post', path: '/v1/kyb-submissions', levels: ['M'], permission: 'compliance:kyb:manage', tag,
    summary: 'Create a KYB draft for the caller\'s company',
    description: `Every data field is optional in a draft. A company holds one open (not approved or rejected) submission at a time: a second is 409 KYB_SUBMISSION_OPEN. ${STATES}`,
    kind: 'single', status: 201, body: CreateKybBody, response: KybSubmissionSchema,
    handler: (ctx, { body }) => kyb.createSubmission(ctx, body),
  }),
  defineOperation({
    id: 'listKybSubmissions', method: 'get', path: '/v1/kyb-submissions', levels: ['M'], permission: 'compliance:kyb:view', tag,
    summary: 'List the caller\'s own KYB submissions', kind: 'list', query: MerchantListQuery, response: KybSubmissionSchema,
    handler: (ctx, { query: { status, ...page } }) => kyb.listSubmissions(ctx, { status }, page),
  }),
  defineOperation({
    id: 'getLatestKybSubmission', method: 'get', path: '/v1/kyb-submissions/latest', levels: ['M'], permission: 'compliance:kyb:view', tag,
    summary: 'The latest KYB submission of the caller\'s company', description: '404 when the company has none.',
    kind: 'single', response: KybSubmissionSchema,
    handler: (ctx) => kyb.getLatestSubmission(ctx),
  }),
  defineOperation({
    id: 'getKybSubmission', method: 'get', path: '/v1/kyb-submissions/{id}', levels: ['M'], permission: 'compliance:kyb:view', tag,
    summary: 'Get a KYB submission with its documents', kind: 'single', params: idParams, response: KybSubmissionSchema,
    handler: (ctx, { params }) => kyb.getSubmission(ctx, params.id),
  }),
  defineOperation({
    id: 'updateKybSubmission', method: 'patch', path: '/v1/kyb-submissions/{id}', levels: ['M'], permission: 'compliance:kyb:manage', tag,
    summary: 'Update a submission\'s data',
    description: 'Only in draft or information_requested (409 otherwise). The given top-level data fields replace the stored ones; null removes one.',
    kind: 'single', params: idParams, body: UpdateKybBody, response: KybSubmissionSchema,
    handler: (ctx, { params, body }) => kyb.updateSubmission(ctx, params.id, body),
  }),
  defineOperation({
    id: 'submitKybSubmission', method: 'post', path: '/v1/kyb-submissions/{id}/submit', levels: ['M'], permission: 'compliance:kyb:manage', tag,
    summary: 'Submit for review',
    description: 'From draft or information_requested. Requires data.legalName, registrationNumber, country, registeredAddress (line1, city, postalCode, country), at least one owner with name and ownershipPercent, and at least one document: 400 KYB_INCOMPLETE names each missing field. Emits kyb.submitted to tenant endpoints.',
    kind: 'single', params: idParams, response: KybSubmissionSchema,
    handler: (ctx, { params }) => kyb.submitSubmission(ctx, params.id),
  }),
  defineOperation({
    id: 'uploadKybDocument', method: 'post', path: '/v1/kyb-submissions/{id}/documents', levels: ['M'], permission: 'compliance:kyb:manage', tag,
    summary: 'Upload a document (PDF, PNG or JPEG, at most 10 MB)',
    description: 'The raw file as the body with its Content-Type (name it with Content-Disposition or ?filename=), or multipart/form-data with one file part. The query parameter type says what the document is. Over 10 MB is 413; another type, or content whose leading bytes do not match the type, 415. Only to draft or information_requested submissions (409 otherwise). Answers the submission with its documents.',
    kind: 'single', status: 201, params: idParams, query: UploadQuery, response: KybSubmissionSchema,
    upload: { maxBytes: kybDocuments.KYB_MAX_BYTES, types: kybDocuments.KYB_CONTENT_TYPES },
    handler: (ctx, { params, query, body }) => {
      const file = body as unknown as UploadedFile;
      return kybDocuments.uploadDocument(ctx, params.id, { ...file, documentType: query.type, fallbackFilename: query.filename });
    },
  }),
  defineOperation({
    id: 'downloadKybDocument', method: 'get', path: '/v1/kyb-submissions/{id}/documents/{documentId}/content', levels: ['M', 'T', 'P'],
    permission: 'compliance:kyb:view', tag,
    summary: 'Download a document, byte for byte as uploaded', description: 'The bytes are checked against the stored SHA-256 before they are served.',
    kind: 'file', fileTypes: kybDocuments.KYB_CONTENT_TYPES, params: DocumentParams, response: KybDocumentSchema,
    handler: async (ctx, { params }) => {
      const { contentType, filename, bytes } = await kybDocuments.downloadDocument(ctx, params.id, params.documentId);
      return { contentType, filename, bytes };
    },
  }),
  defineOperation({
    id: 'reviewerListKybSubmissions', method: 'get', path: '/v1/admin/kyb-submissions', levels: ['T', 'P'], permission: 'compliance:kyb:review', tag,
    summary: 'Reviewer list of KYB submissions', kind: 'list', query: ReviewerListQuery, response: KybSubmissionSchema,
    handler: (ctx, { query: { status, companyId, merchantId, ...page } }) => kyb.listSubmissions(ctx, { status, companyId, merchantId }, page),
  }),
  defineOperation({
    id: 'reviewerGetKybSubmission', method: 'get', path: '/v1/admin/kyb-submissions/{id}', levels: ['T', 'P'], permission: 'compliance:kyb:review', tag,
    summary: 'Reviewer get of a KYB submission with its documents',
    description: 'A read: it does not change the status (the first document verdict moves a submitted submission to in_review).',
    kind: 'single', params: idParams, response: KybSubmissionSchema,
    handler: (ctx, { params }) => kyb.getSubmission(ctx, params.id),
  }),
  defineOperation({
    id: 'approveKybSubmission', method: 'post', path: '/v1/admin/kyb-submissions/{id}/approve', levels: ['T', 'P'], permission: 'compliance:kyb:review', tag,
    summary: 'Approve a submission',
    description: 'From submitted or in_review. Every document needs a verdict and at least one must be accepted (409 KYB_DOCUMENTS_NOT_ACCEPTED otherwise). An approved submission lets the company\'s merchants be approved for live.',
    kind: 'single', params: idParams, body: ApproveBody, response: KybSubmissionSchema,
    handler: (ctx, { params, body }) => kyb.approveSubmission(ctx, params.id, body),
  }),
  defineOperation({
    id: 'rejectKybSubmission', method: 'post', path: '/v1/admin/kyb-submissions/{id}/reject', levels: ['T', 'P'], permission: 'compliance:kyb:review', tag,
    summary: 'Reject a submission with a reason', description: 'From submitted or in_review; rejectionReason is mandatory. Final: the company may start a new submission.',
    kind: 'single', params: idParams, body: RejectBody, response: KybSubmissionSchema,
    handler: (ctx, { params, body }) => kyb.rejectSubmission(ctx, params.id, body),
  }),
  defineOperation({
    id: 'requestKybInformation', method: 'post', path: '/v1/admin/kyb-submissions/{id}/request-information', levels: ['T', 'P'], permission: 'compliance:kyb:review', tag,
    summary: 'Ask the merchant for more information', description: 'From submitted or in_review to information_requested; message is mandatory. The merchant may then edit, upload and submit again.',
    kind: 'single', params: idParams, body: RequestInformationBody, response: KybSubmissionSchema,
    handler: (ctx, { params, body }) => kyb.requestInformation(ctx, params.id, body),
  }),
  defineOperation({
    id: 'setKybDocumentVerdict', method: 'post', path: '/v1/admin/kyb-submissions/{id}/documents/{documentId}/verdict', levels: ['T', 'P'],
    permission: 'compliance:kyb:review', tag,
    summary: 'Accept or reject one document',
    description: 'On submitted or in_review submissions (409 otherwise); the first verdict moves a submitted submission to in_review. A verdict may be changed until the decision.',
    kind: 'single', params: DocumentParams, body: VerdictBody, response: KybSubmissionSchema,
    handler: (ctx, { params, body }) => kyb.setDocumentVerdict(ctx, params.id, params.documentId, body),
  }),
];

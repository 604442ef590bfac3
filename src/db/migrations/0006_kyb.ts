import { DataTypes, type QueryInterface } from 'sequelize';
import type { Dialect } from '../dialect';
import { id, uuid, str, text, json, date, stamps } from './columns';

// KYB submissions, their documents' metadata, and the documents' bytes (kept apart so that reads of the
// metadata never load file contents).

export async function up(qi: QueryInterface, _dialect?: Dialect): Promise<void> {
  await qi.createTable('kyb_submissions', {
    id,
    tenantId: uuid(false),
    companyId: uuid(false),
    merchantId: uuid(false),
    status: str(false),
    data: json(false),
    reviewerComment: text(),
    rejectionReason: text(),
    informationRequest: text(),
    submittedAt: date(),
    reviewedAt: date(),
    reviewedBy: str(),
    decidedAt: date(),
    // the companyId while the submission is open (not approved or rejected), else null: the unique index below
    // lets a company hold one open submission at a time, even under concurrent creates
    openCompanyId: uuid(),
    ...stamps,
  });
  await qi.addIndex('kyb_submissions', ['openCompanyId'], { unique: true, name: 'kyb_submissions_one_open_per_company' });
  await qi.addIndex('kyb_submissions', ['tenantId', 'createdAt', 'id']);
  await qi.addIndex('kyb_submissions', ['companyId', 'status']);
  await qi.addIndex('kyb_submissions', ['merchantId']);

  await qi.createTable('kyb_documents', {
    id,
    tenantId: uuid(false),
    merchantId: uuid(false),
    submissionId: uuid(false),
    documentType: str(false),
    filename: str(false),
    contentType: str(false),
    size: { type: DataTypes.INTEGER, allowNull: false },
    sha256: str(false),
    storage: str(false),
    verdict: str(false),
    verdictComment: text(),
    verdictAt: date(),
    verdictBy: str(),
    uploadedBy: str(),
    ...stamps,
  });
  await qi.addIndex('kyb_documents', ['submissionId', 'createdAt']);
  await qi.addIndex('kyb_documents', ['tenantId']);

  await qi.createTable('kyb_document_contents', {
    id,
    tenantId: uuid(false),
    merchantId: uuid(false),
    content: { type: DataTypes.BLOB, allowNull: false },
    createdAt: date(false),
    updatedAt: date(false),
  });
}

export async function down(qi: QueryInterface, _dialect?: Dialect): Promise<void> {
  await qi.dropTable('kyb_document_contents');
  await qi.dropTable('kyb_documents');
  await qi.dropTable('kyb_submissions');
}

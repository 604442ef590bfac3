import { UniqueConstraintError } from 'sequelize';
import { inTransaction, type CallerContext } from '../../domain/context';
import { elevate } from '../../domain/authority';
import { ConflictError, NotFoundError, ValidationError, type FieldIssue } from '../../domain/errors';
import { isUuid, scoped, type ListParams, type Page } from '../../db/scoped';
import type { KybDocumentRow, KybStatus, KybSubmissionRow } from '../../db/models';
import { auditRecord, auditedRecord, auditedUpdate, lockedRecord } from '../audit/changes';
import { moveRecord, statusMachine, transition, type Move } from '../status';
import { filterWhere, presentRow, type Presented } from '../present';

/**
 * KYB submissions. A merchant caller acts for the company of its own merchant and sees only the submissions
 * it made; tenant and platform reviewers see their scope's.
 *
 * States: draft -> submitted (submit) -> in_review (the first document verdict) -> approved | rejected |
 * information_requested; information_requested -> submitted (submit again). approve, reject and
 * request-information also apply straight from submitted. approved and rejected are final. Any other move is
 * 409 INVALID_STATE_TRANSITION. A company holds at most one open (not final) submission at a time.
 */

const SUBMISSION_FIELDS = [
  'id',
  'tenantId',
  'companyId',
  'merchantId',
  'status',
  'data',
  'reviewerComment',
  'rejectionReason',
  'informationRequest',
  'submittedAt',
  'reviewedAt',
  'reviewedBy',
  'decidedAt',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const satisfies readonly (keyof KybSubmissionRow)[];

const DOCUMENT_FIELDS = [
  'id',
  'submissionId',
  'documentType',
  'filename',
  'contentType',
  'size',
  'sha256',
  'verdict',
  'verdictComment',
  'verdictAt',
  'verdictBy',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof KybDocumentRow)[];

export type KybDocument = Presented<Pick<KybDocumentRow, (typeof DOCUMENT_FIELDS)[number]>>;
export type KybSubmissionCore = Presented<Pick<KybSubmissionRow, (typeof SUBMISSION_FIELDS)[number]>>;
export type KybSubmission = KybSubmissionCore & { documents: KybDocument[] };

export function toKybDocument(row: KybDocumentRow): KybDocument {
  return presentRow(row, DOCUMENT_FIELDS);
}

function core(row: KybSubmissionRow): KybSubmissionCore {
  return presentRow({ ...row, data: row.data ?? {} }, SUBMISSION_FIELDS);
}

function toSubmission(row: KybSubmissionRow, documents: KybDocumentRow[]): KybSubmission {
  const own = documents
    .filter((d) => d.submissionId === row.id)
    .sort((a, b) => +new Date(a.createdAt) - +new Date(b.createdAt) || a.id.localeCompare(b.id));
  return { ...core(row), documents: own.map(toKybDocument) };
}

const submissions = (ctx: CallerContext) => scoped(ctx, ctx.db.models.KybSubmission);
const documents = (ctx: CallerContext) => scoped(ctx, ctx.db.models.KybDocument);

/** The documents of these submissions, in the caller's scope. */
export async function documentsOf(ctx: CallerContext, submissionIds: string[]): Promise<KybDocumentRow[]> {
  if (submissionIds.length === 0) return [];
  return documents(ctx).findAll({ submissionId: submissionIds });
}

async function present(ctx: CallerContext, row: KybSubmissionRow): Promise<KybSubmission> {
  return toSubmission(row, await documentsOf(ctx, [row.id]));
}

async function presentPage(ctx: CallerContext, page: Page<KybSubmissionRow>): Promise<Page<KybSubmission>> {
  const docs = await documentsOf(
    ctx,
    page.data.map((r) => r.id),
  );
  return { data: page.data.map((r) => toSubmission(r, docs)), pagination: page.pagination };
}

/**
 * The same tenant seen company-wide: a merchant caller sees only its own submissions, but the one-open-submission
 * rule and the approved-KYB check are about the whole company.
 */
function companyView(ctx: CallerContext): CallerContext {
  return elevate(ctx, ctx.level === 'platform' ? 'platform' : 'tenant', 'KYB rules are about the whole company');
}

/** The company of the merchant caller. */
async function callerCompanyId(ctx: CallerContext): Promise<string> {
  const merchant = await scoped(ctx, ctx.db.models.Merchant).get(ctx.merchantId ?? '');
  return merchant.companyId;
}

const FINAL: KybStatus[] = ['approved', 'rejected'];
export const EDITABLE: KybStatus[] = ['draft', 'information_requested'];

const SUBMISSION = auditedRecord<KybSubmissionRow>({
  model: (ctx) => ctx.db.models.KybSubmission,
  targetType: 'kyb_submission',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId }),
  render: core,
});

export const KYB_DOCUMENT = auditedRecord<KybDocumentRow>({
  model: (ctx) => ctx.db.models.KybDocument,
  targetType: 'kyb_document',
  owner: (row) => ({ tenantId: row.tenantId, merchantId: row.merchantId }),
  render: toKybDocument,
});

function conflict(row: KybSubmissionRow, verb: string, from: readonly KybStatus[]): ConflictError {
  return new ConflictError('INVALID_STATE_TRANSITION', `A KYB submission in status ${row.status} cannot ${verb}.`, {
    hint: `This applies to submissions in status ${from.join(' or ')}.`,
  });
}

const REVIEWABLE: KybStatus[] = ['submitted', 'in_review'];

type KybMove = 'submit' | 'start_review' | 'approve' | 'reject' | 'request_information';

const KYB_VERBS: Record<KybMove, string> = {
  submit: 'be submitted',
  start_review: 'take document verdicts',
  approve: 'be approved',
  reject: 'be rejected',
  request_information: 'have information requested',
};

const KYB_STATUS = statusMachine({
  record: SUBMISSION,
  moves: {
    submit: { from: EDITABLE, to: 'submitted', action: 'kyb_submission.submitted' },
    /** a reviewer's first document verdict */
    start_review: { from: ['submitted'], to: 'in_review', action: 'kyb_submission.review_started' },
    approve: { from: REVIEWABLE, to: 'approved', action: 'kyb_submission.approved' },
    reject: { from: REVIEWABLE, to: 'rejected', action: 'kyb_submission.rejected' },
    request_information: { from: REVIEWABLE, to: 'information_requested', action: 'kyb_submission.information_requested' },
  } satisfies Record<KybMove, Move<KybSubmissionRow, KybStatus>>,
  // a document verdict is taken in either reviewable status: its refusal names both
  refused: (row, move, spec) => conflict(row, KYB_VERBS[move], move === 'start_review' ? REVIEWABLE : spec.from),
});

type DataInput = Record<string, unknown>;

function cleanData(data: DataInput): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined && v !== null));
}

// ---- merchant side ----

export async function createSubmission(ctx: CallerContext, input: { data?: DataInput }): Promise<KybSubmission> {
  return inTransaction(ctx, async (tx) => {
    const companyId = await callerCompanyId(tx);
    const open = await submissions(companyView(tx)).findOne({ openCompanyId: companyId });
    const alreadyOpen = () =>
      new ConflictError(
        'KYB_SUBMISSION_OPEN',
        `Company ${companyId} already has an open KYB submission${open ? ` (${open.id}, ${open.status})` : ''}.`,
        {
          hint: 'Continue that submission; a new one can start once it is approved or rejected.',
        },
      );
    if (open) throw alreadyOpen();
    let row: KybSubmissionRow;
    try {
      row = await submissions(tx).create({
        companyId,
        status: 'draft',
        data: cleanData(input.data ?? {}),
        reviewerComment: null,
        rejectionReason: null,
        informationRequest: null,
        submittedAt: null,
        reviewedAt: null,
        reviewedBy: null,
        decidedAt: null,
        openCompanyId: companyId,
      });
    } catch (error) {
      if (error instanceof UniqueConstraintError) throw alreadyOpen();
      throw error;
    }
    await auditRecord(tx, SUBMISSION, row, 'kyb_submission.created', { after: core(row) });
    return toSubmission(row, []);
  });
}

export async function listSubmissions(
  ctx: CallerContext,
  filters: { status?: KybStatus; companyId?: string; merchantId?: string },
  page: ListParams,
): Promise<Page<KybSubmission>> {
  const where: Record<string, unknown> = filterWhere(filters, ['status', 'companyId', 'merchantId']);
  return presentPage(ctx, await submissions(ctx).list(where, page));
}

export async function getSubmission(ctx: CallerContext, id: string): Promise<KybSubmission> {
  return present(ctx, await submissions(ctx).get(id));
}

/** The newest submission of the caller's company that the caller made; 404 when none. */
export async function getLatestSubmission(ctx: CallerContext): Promise<KybSubmission> {
  const companyId = await callerCompanyId(ctx);
  const [row] = await submissions(ctx).findAll({ companyId }, { limit: 1 });
  if (!row) throw new NotFoundError('KYB submission', undefined, { detail: 'The company has no KYB submission yet.' });
  return present(ctx, row);
}

export async function updateSubmission(ctx: CallerContext, id: string, input: { data: DataInput }): Promise<KybSubmission> {
  return inTransaction(ctx, async (tx) => {
    const row = await lockedRecord(tx, SUBMISSION, id);
    const refused = () => conflict(row, 'have its data changed', EDITABLE);
    if (!EDITABLE.includes(row.status)) throw refused();
    const merged: Record<string, unknown> = { ...(row.data ?? {}) };
    for (const [k, v] of Object.entries(input.data)) {
      if (v === null) delete merged[k];
      else if (v !== undefined) merged[k] = v;
    }
    const updated = await auditedUpdate(
      tx,
      SUBMISSION,
      row,
      { data: merged },
      { action: 'kyb_submission.updated', expect: { status: row.status }, refused },
    );
    return present(tx, updated);
  });
}

/** What submit requires of the data: each missing essential is named (data.<path>). */
export function missingEssentials(data: Record<string, unknown>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const need = (present: unknown, path: string) => {
    if (present === undefined || present === null || present === '')
      issues.push({ path: `data.${path}`, message: 'is required to submit' });
  };
  need(data.legalName, 'legalName');
  need(data.registrationNumber, 'registrationNumber');
  need(data.country, 'country');
  const address = data.registeredAddress as Record<string, unknown> | undefined;
  if (!address) need(undefined, 'registeredAddress');
  else for (const f of ['line1', 'city', 'postalCode', 'country']) need(address[f], `registeredAddress.${f}`);
  const owners = data.owners as Record<string, unknown>[] | undefined;
  if (!owners || owners.length === 0) issues.push({ path: 'data.owners', message: 'must list at least one owner to submit' });
  else
    owners.forEach((o, i) => {
      need(o.name, `owners[${i}].name`);
      need(o.ownershipPercent, `owners[${i}].ownershipPercent`);
    });
  return issues;
}

export async function submitSubmission(ctx: CallerContext, id: string): Promise<KybSubmission> {
  let docs: KybDocumentRow[] = [];
  const updated = await moveRecord(ctx, KYB_STATUS, id, 'submit', {
    check: async (row, tx) => {
      const issues = missingEssentials(row.data ?? {});
      docs = await documentsOf(tx, [row.id]);
      if (docs.length === 0) issues.push({ path: 'documents', message: 'must hold at least one uploaded document to submit' });
      if (issues.length) {
        throw new ValidationError(`The submission is incomplete: ${issues.map((i) => i.path).join(', ')}.`, issues, 'KYB_INCOMPLETE');
      }
    },
    changes: (_row, tx) => ({ submittedAt: tx.clock.now() }),
    event: (moved) => ({
      type: 'kyb.submitted',
      tenantId: moved.tenantId,
      merchantId: moved.merchantId,
      data: {
        id: moved.id,
        object: 'kyb_submission',
        companyId: moved.companyId,
        merchantId: moved.merchantId,
        status: moved.status,
        submittedAt: new Date(moved.submittedAt!).toISOString(),
        documentCount: docs.length,
      },
    }),
  });
  return toSubmission(updated, docs);
}

// ---- reviewer side ----

function reviewStamp(ctx: CallerContext) {
  return { reviewedAt: ctx.clock.now(), reviewedBy: ctx.actor.id };
}

/** A reviewer's decision: the move's changes (which may refuse it by throwing) and the review stamp. */
async function decide(
  ctx: CallerContext,
  id: string,
  move: Exclude<KybMove, 'submit' | 'start_review'>,
  changes: (tx: CallerContext, row: KybSubmissionRow) => Promise<Partial<KybSubmissionRow>>,
): Promise<KybSubmission> {
  return inTransaction(ctx, async (tx) => {
    const updated = await moveRecord(tx, KYB_STATUS, id, move, {
      changes: async (row) => ({ ...(await changes(tx, row)), ...reviewStamp(tx) }),
    });
    return present(tx, updated);
  });
}

/**
 * Approve: needs at least one document, none still pending, and at least one accepted (a rejected document that
 * a later upload replaced stays on the record as history).
 */
export async function approveSubmission(ctx: CallerContext, id: string, input: { comment?: string }): Promise<KybSubmission> {
  return decide(ctx, id, 'approve', async (tx, row) => {
    const docs = await documentsOf(tx, [row.id]);
    const pending = docs.filter((d) => d.verdict === 'pending');
    if (docs.length === 0 || pending.length > 0 || !docs.some((d) => d.verdict === 'accepted')) {
      throw new ConflictError(
        'KYB_DOCUMENTS_NOT_ACCEPTED',
        docs.length === 0
          ? 'The submission has no documents.'
          : pending.length > 0
            ? `Documents without a verdict: ${pending.map((d) => d.id).join(', ')}.`
            : 'No document of the submission was accepted.',
        { hint: 'Give every document a verdict (accept at least one) before approving.' },
      );
    }
    const now = tx.clock.now();
    return { decidedAt: now, reviewerComment: input.comment ?? row.reviewerComment, openCompanyId: null };
  });
}

export async function rejectSubmission(
  ctx: CallerContext,
  id: string,
  input: { rejectionReason: string; comment?: string },
): Promise<KybSubmission> {
  return decide(ctx, id, 'reject', async (tx, row) => ({
    decidedAt: tx.clock.now(),
    rejectionReason: input.rejectionReason,
    reviewerComment: input.comment ?? row.reviewerComment,
    openCompanyId: null,
  }));
}

export async function requestInformation(ctx: CallerContext, id: string, input: { message: string }): Promise<KybSubmission> {
  return decide(ctx, id, 'request_information', async () => ({ informationRequest: input.message }));
}

/**
 * A verdict on one document (submitted or in_review submissions only; a verdict may be changed until the
 * decision). The first verdict moves a submitted submission to in_review.
 */
export async function setDocumentVerdict(
  ctx: CallerContext,
  id: string,
  documentId: string,
  input: { verdict: 'accepted' | 'rejected'; comment?: string },
): Promise<KybSubmission> {
  return inTransaction(ctx, async (tx) => {
    let row = await submissions(tx).get(id, { lock: true });
    const doc = isUuid(documentId) ? await documents(tx).findOne({ id: documentId, submissionId: row.id }) : null;
    if (!doc) throw new NotFoundError('KYB document', documentId);
    if (!REVIEWABLE.includes(row.status)) throw conflict(row, 'take document verdicts', REVIEWABLE);
    if (row.status === 'submitted') row = await transition(tx, KYB_STATUS, row, 'start_review', { changes: reviewStamp(tx) });
    else {
      const stamped = await submissions(tx).updateIf(row, { status: row.status }, reviewStamp(tx));
      if (!stamped) throw conflict(row, 'take document verdicts', REVIEWABLE);
      row = stamped;
    }
    await auditedUpdate(
      tx,
      KYB_DOCUMENT,
      doc,
      {
        verdict: input.verdict,
        verdictComment: input.comment ?? null,
        verdictAt: tx.clock.now(),
        verdictBy: tx.actor.id,
      },
      { action: `kyb_document.${input.verdict}` },
    );
    return present(tx, row);
  });
}

/** Whether the company has an approved KYB submission (live approval of its merchants needs one). */
export async function companyHasApprovedKyb(ctx: CallerContext, companyId: string): Promise<boolean> {
  return (await submissions(companyView(ctx)).count({ companyId, status: 'approved' })) > 0;
}

export { FINAL as KYB_FINAL_STATUSES };

import { BusinessRuleError } from '../../../domain/errors';
import type { CallerContext } from '../../../domain/context';
import type { Runtime } from '../../../runtime';
import { createCompany } from '../../organization/companies';
import { createMerchant } from '../../organization/merchants';
import { createSubmission, submitSubmission } from '../../kyb/submissions';
import { uploadDocument } from '../../kyb/documents';
import { operatorContext } from '../../access/operators';
import { deliveriesOf, eventsOf, type EmittedEvent, type TriggeredReal } from './events';

/** The types `events trigger` makes with real organization records (a tenant event each). */
const ORGANIZATION_TYPES = ['merchant.created', 'kyb.submitted'] as const;

export function drivesRealOrganization(type: string): type is (typeof ORGANIZATION_TYPES)[number] {
  return (ORGANIZATION_TYPES as readonly string[]).includes(type);
}

export interface TriggeredOrganization extends TriggeredReal {
  companyId: string;
  merchantId: string;
  kybSubmissionId: string | null;
  events: EmittedEvent[];
}

/** The smallest PDF the KYB upload accepts (its magic number and a line). */
const SANDBOX_PDF = Buffer.from('%PDF-1.7\n% payplane events trigger: a sandbox certificate of incorporation\n');

/**
 * merchant.created: a new sandbox merchant of a new sandbox company; kyb.submitted: the same, then its company's KYB
 * submitted (complete sample company data and a one-page PDF), waiting for an operator's review.
 */
export async function triggerOrganizationEvent(
  rt: Runtime,
  tenantCtx: CallerContext,
  type: (typeof ORGANIZATION_TYPES)[number],
): Promise<TriggeredOrganization> {
  const startedAt = rt.clock.now();
  const stamp = startedAt.toISOString().slice(0, 19).replace('T', ' ');
  // as the API makes them (POST /v1/admin/companies, POST /v1/admin/merchants)
  const company = await createCompany(tenantCtx, { name: `Events trigger company ${stamp}`, country: 'DE' });
  const merchant = await createMerchant(tenantCtx, { companyId: company.id, name: `Events trigger merchant ${stamp}` });
  let kybSubmissionId: string | null = null;
  if (type === 'kyb.submitted') {
    const ctx = operatorContext(rt, { level: 'merchant', tenantId: tenantCtx.tenantId!, merchantId: merchant.id, livemode: false });
    const draft = await createSubmission(ctx, {
      data: {
        legalName: `Events Trigger ${stamp} GmbH`,
        registrationNumber: 'HRB 00000',
        country: 'DE',
        incorporationDate: '2020-01-01',
        website: 'https://sandbox.example',
        registeredAddress: { line1: 'Sandboxstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
        owners: [{ name: 'Sandbox Owner', ownershipPercent: 100, nationality: 'DE' }],
      },
    });
    await uploadDocument(ctx, draft.id, {
      contentType: 'application/pdf',
      filename: 'certificate.pdf',
      bytes: SANDBOX_PDF,
      documentType: 'certificate_of_incorporation',
    });
    kybSubmissionId = (await submitSubmission(ctx, draft.id)).id;
  }
  const events = await eventsOf(rt, tenantCtx, startedAt, [merchant.id, company.id, ...(kybSubmissionId ? [kybSubmissionId] : [])], null);
  const wanted = events.find((e) => e.type === type);
  if (!wanted) throw new BusinessRuleError('EVENT_NOT_PRODUCED', `Merchant ${merchant.id} was made, but ${type} was not emitted.`);
  const deliveries = await deliveriesOf(rt, wanted.id);
  return {
    eventId: wanted.id,
    type,
    tenantId: tenantCtx.tenantId!,
    livemode: false,
    sample: false,
    companyId: company.id,
    merchantId: merchant.id,
    kybSubmissionId,
    deliveriesQueued: deliveries.length,
    deliveries,
    events,
  };
}

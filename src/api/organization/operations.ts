import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import * as companies from '../../services/organization/companies';
import * as merchants from '../../services/organization/merchants';
import type { AccountMove } from '../../services/status';
import {
  CompanySchema, CreateCompanyBody, CreateMerchantBody, ListCompaniesQuery, ListCompanyMerchantsQuery, ListMerchantsQuery,
  MerchantSchema, PutCheckoutHostingBody, PutProcessingModeBody, PutThreeDsConfigBody, ThreeDsConfigSchema, UpdateCompanyBody,
  UpdateMerchantBody,
} from './schemas';

const companyTag = 'Companies';
const merchantTag = 'Merchants';

const companyOperations = [
  defineOperation({
    id: 'createCompany', method: 'post', path: '/v1/admin/companies', levels: ['T', 'P'], permission: 'organization:companies:manage',
    tag: companyTag, summary: 'Create a company',
    description: 'Created in the caller\'s mode (livemode) and tenant; platform callers name the tenant with tenantId.',
    kind: 'single', status: 201, body: CreateCompanyBody, response: CompanySchema,
    handler: (ctx, { body }) => companies.createCompany(ctx, body),
  }),
  defineOperation({
    id: 'listCompanies', method: 'get', path: '/v1/admin/companies', levels: ['T', 'P'], permission: 'organization:companies:view',
    tag: companyTag, summary: 'List companies',
    description: 'A company belongs to the mode it was created in: a caller reads, changes and lists the companies of its own mode '
      + 'only (another mode\'s company is 404 by id; a livemode filter naming the other mode yields an empty page). search matches '
      + 'a case-insensitive substring of name or legalName.',
    kind: 'list', query: ListCompaniesQuery, response: CompanySchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => companies.listCompanies(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'getCompany', method: 'get', path: '/v1/admin/companies/{id}', levels: ['T', 'P'], permission: 'organization:companies:view',
    tag: companyTag, summary: 'Get a company', kind: 'single', params: idParams, response: CompanySchema,
    handler: (ctx, { params }) => companies.getCompany(ctx, params.id),
  }),
  defineOperation({
    id: 'updateCompany', method: 'patch', path: '/v1/admin/companies/{id}', levels: ['T', 'P'], permission: 'organization:companies:manage',
    tag: companyTag, summary: 'Update a company', kind: 'single', params: idParams, body: UpdateCompanyBody, response: CompanySchema,
    handler: (ctx, { params, body }) => companies.updateCompany(ctx, params.id, body),
  }),
  defineOperation({
    id: 'disableCompany', method: 'post', path: '/v1/admin/companies/{id}/disable', levels: ['T', 'P'], permission: 'organization:companies:manage',
    tag: companyTag, summary: 'Disable a company',
    description: 'active to disabled (409 otherwise). Its merchants keep their state; a disabled company takes no new merchants (409 COMPANY_DISABLED).',
    kind: 'single', params: idParams, response: CompanySchema,
    handler: (ctx, { params }) => companies.disableCompany(ctx, params.id),
  }),
  defineOperation({
    id: 'listCompanyMerchants', method: 'get', path: '/v1/admin/companies/{id}/merchants', levels: ['T', 'P'], permission: 'organization:merchants:view',
    tag: companyTag, summary: 'List the merchants of a company', kind: 'list', params: idParams, query: ListCompanyMerchantsQuery, response: MerchantSchema,
    handler: (ctx, { params, query: { cursor, limit, sortOrder, ...filters } }) =>
      merchants.listCompanyMerchants(ctx, params.id, filters, { cursor, limit, sortOrder }),
  }),
];

const statusMove = (move: AccountMove, summary: string, description: string) =>
  defineOperation({
    id: `${move}Merchant`, method: 'post', path: `/v1/admin/merchants/{id}/${move}`, levels: ['T', 'P'], permission: 'organization:merchants:manage',
    tag: merchantTag, summary, description: `${description} 409 when the current status does not allow the move.`,
    kind: 'single', params: idParams, response: MerchantSchema,
    handler: (ctx, { params }) => merchants.changeMerchantStatus(ctx, params.id, move),
  });

const merchantOperations = [
  defineOperation({
    id: 'createMerchant', method: 'post', path: '/v1/admin/merchants', levels: ['T', 'P'], permission: 'organization:merchants:manage',
    tag: merchantTag, summary: 'Create a merchant',
    description: 'The merchant starts active and in sandbox: live keys for it are refused (403 MERCHANT_NOT_LIVE) until it is approved '
      + 'for live. 409 COMPANY_DISABLED under a disabled company. Emits merchant.created to tenant endpoints.',
    kind: 'single', status: 201, body: CreateMerchantBody, response: MerchantSchema,
    handler: (ctx, { body }) => merchants.createMerchant(ctx, body),
  }),
  defineOperation({
    id: 'listMerchants', method: 'get', path: '/v1/admin/merchants', levels: ['M', 'T', 'P'], permission: 'organization:merchants:view',
    tag: merchantTag, summary: 'List merchants', description: 'A merchant caller sees itself only. Merchants span both modes.',
    kind: 'list', query: ListMerchantsQuery, response: MerchantSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => merchants.listMerchants(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    id: 'getMerchant', method: 'get', path: '/v1/admin/merchants/{id}', levels: ['M', 'T', 'P'], permission: 'organization:merchants:view',
    tag: merchantTag, summary: 'Get a merchant', kind: 'single', params: idParams, response: MerchantSchema,
    handler: (ctx, { params }) => merchants.getMerchant(ctx, params.id),
  }),
  defineOperation({
    id: 'updateMerchant', method: 'patch', path: '/v1/admin/merchants/{id}', levels: ['T', 'P'], permission: 'organization:merchants:manage',
    tag: merchantTag, summary: 'Update a merchant', kind: 'single', params: idParams, body: UpdateMerchantBody, response: MerchantSchema,
    handler: (ctx, { params, body }) => merchants.updateMerchant(ctx, params.id, body),
  }),
  statusMove('activate', 'Activate a suspended or disabled merchant', 'Its keys and users work again.'),
  statusMove('suspend', 'Suspend an active merchant', 'Its keys and users are refused (403 MERCHANT_SUSPENDED) until it is activated.'),
  statusMove('disable', 'Disable a merchant', 'Its keys and users are refused (403 MERCHANT_DISABLED).'),
  defineOperation({
    id: 'requestMerchantLiveApproval', method: 'post', path: '/v1/admin/merchants/{id}/request-live-approval', levels: ['M', 'T'],
    permission: 'organization:merchants:request-live', tag: merchantTag, summary: 'Ask for live approval',
    description: 'liveStatus sandbox to pending_approval; 409 INVALID_STATE_TRANSITION from any other liveStatus.',
    kind: 'single', params: idParams, response: MerchantSchema,
    handler: (ctx, { params }) => merchants.changeLiveStatus(ctx, params.id, 'request'),
  }),
  defineOperation({
    id: 'approveMerchantLive', method: 'post', path: '/v1/admin/merchants/{id}/approve-live', levels: ['T', 'P'],
    permission: 'organization:merchants:approve-live', tag: merchantTag, summary: 'Approve a merchant for live',
    description: 'liveStatus sandbox or pending_approval to approved: the merchant may then hold live keys. Needs an approved KYB '
      + 'submission of the merchant\'s company (409 KYB_NOT_APPROVED otherwise); 409 INVALID_STATE_TRANSITION when already approved; '
      + '409 MERCHANT_DISABLED for a disabled merchant.',
    kind: 'single', params: idParams, response: MerchantSchema,
    handler: (ctx, { params }) => merchants.changeLiveStatus(ctx, params.id, 'approve'),
  }),
  defineOperation({
    id: 'rejectMerchantLive', method: 'post', path: '/v1/admin/merchants/{id}/reject-live', levels: ['T', 'P'],
    permission: 'organization:merchants:approve-live', tag: merchantTag, summary: 'Reject a live approval request',
    description: 'liveStatus pending_approval back to sandbox; 409 INVALID_STATE_TRANSITION from any other liveStatus.',
    kind: 'single', params: idParams, response: MerchantSchema,
    handler: (ctx, { params }) => merchants.changeLiveStatus(ctx, params.id, 'reject'),
  }),
  defineOperation({
    id: 'getMerchantThreeDsConfig', method: 'get', path: '/v1/admin/merchants/{id}/3ds-config', levels: ['M', 'T', 'P'],
    permission: 'organization:merchants:view', tag: merchantTag, summary: 'Get the merchant\'s 3DS configuration',
    kind: 'single', params: idParams, response: ThreeDsConfigSchema,
    handler: (ctx, { params }) => merchants.getThreeDsConfig(ctx, params.id),
  }),
  defineOperation({
    id: 'putMerchantThreeDsConfig', method: 'put', path: '/v1/admin/merchants/{id}/3ds-config', levels: ['T', 'P'],
    permission: 'organization:merchants:manage', tag: merchantTag, summary: 'Replace the merchant\'s 3DS configuration',
    description: 'Returns the merchant with its new threeDsConfig.',
    kind: 'single', params: idParams, body: PutThreeDsConfigBody, response: MerchantSchema,
    handler: (ctx, { params, body }) => merchants.putThreeDsConfig(ctx, params.id, body),
  }),
  defineOperation({
    id: 'putMerchantCheckoutHosting', method: 'put', path: '/v1/admin/merchants/{id}/checkout-hosting', levels: ['T', 'P'],
    permission: 'organization:merchants:manage', tag: merchantTag, summary: 'Set checkout hosting',
    description: 'self_hosted (the merchant\'s own checkout calls the API) or provider_hosted (the hosted checkout page). Returns the merchant.',
    kind: 'single', params: idParams, body: PutCheckoutHostingBody, response: MerchantSchema,
    handler: (ctx, { params, body }) => merchants.setCheckoutHosting(ctx, params.id, body.checkoutHosting),
  }),
  defineOperation({
    id: 'putMerchantProcessingMode', method: 'put', path: '/v1/admin/merchants/{id}/processing-mode', levels: ['T', 'P'],
    permission: 'organization:merchants:manage', tag: merchantTag, summary: 'Set processing mode',
    description: 'principal (the tenant processes as merchant of record) or passthrough (the merchant\'s own acquiring contract). Returns the merchant.',
    kind: 'single', params: idParams, body: PutProcessingModeBody, response: MerchantSchema,
    handler: (ctx, { params, body }) => merchants.setProcessingMode(ctx, params.id, body.processingMode),
  }),
];

/** Companies and merchants (the merchant-limit operations are the partners area's). */
export const organizationOperations: Operation[] = [...companyOperations, ...merchantOperations];

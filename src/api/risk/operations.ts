import { pathRecord } from '../references';
import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import * as lists from '../../services/risk/lists';
import * as rules from '../../services/risk/rules';
import * as plans from '../../services/risk/plans';
import * as configuration from '../../services/risk/configuration';
import {
  AntifraudPlanSchema, CreateAntifraudPlanBody, CreateListEntryBody, CreateListGroupBody, CreateScoringRuleBody, ListAntifraudPlansQuery,
  ListEntriesQuery, ListEntryParams, ListEntrySchema, ListGroupParams, ListGroupSchema, ListListGroupsQuery, ListScoringRulesQuery,
  PutRiskConfigurationBody, RiskConfigurationSchema, ScoringRuleSchema, UpdateAntifraudPlanBody, UpdateListGroupBody, UpdateScoringRuleBody,
} from './schemas';

const MANAGE = 'risk:antifraud:manage';
const VIEW = 'risk:antifraud:view';
const TP = ['T', 'P'] as ('T' | 'P')[];
const SCOPE_NOTE = 'Tenant configuration per mode (the caller\'s).';

const PLANS = '/v1/admin/antifraud-plans';
const planTag = { levels: TP, tag: 'Antifraud plans' };

const RULES = '/v1/admin/scoring-rules';
const ruleTag = { levels: TP, tag: 'Scoring rules' };

const LISTS = '/v1/admin/list-groups';
const listTag = { levels: TP, tag: 'List groups' };

const CONFIG = '/v1/admin/risk-configuration';
const configTag = { levels: ['T'] as 'T'[], tag: 'Risk configuration' };

/** Risk: antifraud plans, scoring rules, list groups and the tenant's risk configuration (the engine: services/risk/engine.ts). */
export const riskOperations: Operation[] = [
  defineOperation({
    ...planTag, id: 'createAntifraudPlan', method: 'post', path: PLANS, permission: MANAGE, summary: 'Create an antifraud plan',
    description: `Created disabled unless enabled is true. Rules must be scoring rules of the plan's tenant and mode, merchantId a merchant of the tenant (null: all). Platform callers name the tenant (tenantId) and own the plan. ${SCOPE_NOTE}`,
    kind: 'single', status: 201, body: CreateAntifraudPlanBody, response: AntifraudPlanSchema,
    handler: (ctx, { body }) => plans.createAntifraudPlan(ctx, body),
  }),
  defineOperation({
    ...planTag, id: 'listAntifraudPlans', method: 'get', path: PLANS, permission: VIEW, summary: 'List antifraud plans',
    description: 'Filters: status, merchantId, tenantId (platform callers).', kind: 'list', query: ListAntifraudPlansQuery, response: AntifraudPlanSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => plans.listAntifraudPlans(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    ...planTag, id: 'getAntifraudPlan', method: 'get', path: `${PLANS}/{id}`, permission: VIEW, summary: 'Get an antifraud plan',
    kind: 'single', params: idParams, response: AntifraudPlanSchema, handler: (ctx, { params }) => plans.getAntifraudPlan(ctx, params.id),
  }),
  defineOperation({
    ...planTag, id: 'updateAntifraudPlan', method: 'patch', path: `${PLANS}/{id}`, permission: MANAGE, summary: 'Update an antifraud plan',
    description: 'ruleIds and thresholds replace the whole value.', kind: 'single', params: pathRecord('antifraudPlan'), body: UpdateAntifraudPlanBody, response: AntifraudPlanSchema,
    handler: (ctx, { params, body }) => plans.updateAntifraudPlan(ctx, params.id, body),
  }),
  defineOperation({
    ...planTag, id: 'enableAntifraudPlan', method: 'post', path: `${PLANS}/{id}/enable`, permission: MANAGE, summary: 'Enable an antifraud plan',
    description: 'disabled -> enabled: its rules score the next payments. 409 INVALID_STATE_TRANSITION when already enabled.',
    kind: 'single', params: idParams, response: AntifraudPlanSchema, handler: (ctx, { params }) => plans.setAntifraudPlanStatus(ctx, params.id, 'enabled'),
  }),
  defineOperation({
    ...planTag, id: 'disableAntifraudPlan', method: 'post', path: `${PLANS}/{id}/disable`, permission: MANAGE, summary: 'Disable an antifraud plan',
    description: 'enabled -> disabled. 409 INVALID_STATE_TRANSITION when already disabled.',
    kind: 'single', params: idParams, response: AntifraudPlanSchema, handler: (ctx, { params }) => plans.setAntifraudPlanStatus(ctx, params.id, 'disabled'),
  }),
  defineOperation({
    ...planTag, id: 'deleteAntifraudPlan', method: 'delete', path: `${PLANS}/{id}`, permission: MANAGE, summary: 'Delete an antifraud plan (owner only)',
    description: 'Soft delete by the level that created the plan (ownerLevel): 403 ANTIFRAUD_PLAN_NOT_OWNED for the other level.',
    kind: 'single', params: idParams, response: AntifraudPlanSchema, handler: (ctx, { params }) => plans.deleteAntifraudPlan(ctx, params.id),
  }),

  defineOperation({
    ...ruleTag, id: 'createScoringRule', method: 'post', path: RULES, permission: MANAGE, summary: 'Create a scoring rule',
    description: `Conditions are checked field by field (400 naming each offending path); in_list names a list group of the rule's tenant and mode whose entry type is the field's. The rule takes effect through the enabled antifraud plans that list it. ${SCOPE_NOTE}`,
    kind: 'single', status: 201, body: CreateScoringRuleBody, response: ScoringRuleSchema,
    handler: (ctx, { body }) => rules.createScoringRule(ctx, body),
  }),
  defineOperation({
    ...ruleTag, id: 'listScoringRules', method: 'get', path: RULES, permission: VIEW, summary: 'List scoring rules',
    description: 'Filters: isActive, signal, tenantId (platform callers).', kind: 'list', query: ListScoringRulesQuery, response: ScoringRuleSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => rules.listScoringRules(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    ...ruleTag, id: 'getScoringRule', method: 'get', path: `${RULES}/{id}`, permission: VIEW, summary: 'Get a scoring rule',
    kind: 'single', params: idParams, response: ScoringRuleSchema, handler: (ctx, { params }) => rules.getScoringRule(ctx, params.id),
  }),
  defineOperation({
    ...ruleTag, id: 'updateScoringRule', method: 'patch', path: `${RULES}/{id}`, permission: MANAGE, summary: 'Update a scoring rule',
    description: 'Fields given replace the stored ones (conditions as a whole). Takes effect from the next payment.',
    kind: 'single', params: idParams, body: UpdateScoringRuleBody, response: ScoringRuleSchema,
    handler: (ctx, { params, body }) => rules.updateScoringRule(ctx, params.id, body),
  }),
  defineOperation({
    ...ruleTag, id: 'deleteScoringRule', method: 'delete', path: `${RULES}/{id}`, permission: MANAGE, summary: 'Delete a scoring rule',
    description: 'Soft delete: plans that list it no longer evaluate it.', kind: 'single', params: idParams, response: ScoringRuleSchema,
    handler: (ctx, { params }) => rules.deleteScoringRule(ctx, params.id),
  }),

  defineOperation({
    ...configTag, id: 'getRiskConfiguration', method: 'get', path: CONFIG, permission: VIEW, summary: 'Get the tenant\'s risk configuration',
    description: 'The defaults (isDefault true) when the tenant has not set its own.', kind: 'single', response: RiskConfigurationSchema,
    handler: (ctx) => configuration.getRiskConfiguration(ctx),
  }),
  defineOperation({
    ...configTag, id: 'putRiskConfiguration', method: 'put', path: CONFIG, permission: MANAGE, summary: 'Create or replace the tenant\'s risk configuration',
    description: 'Fields left out take the defaults. challengeScore and reviewScore must not be above declineScore.',
    kind: 'single', body: PutRiskConfigurationBody, response: RiskConfigurationSchema,
    handler: (ctx, { body }) => configuration.putRiskConfiguration(ctx, body),
  }),
  defineOperation({
    ...configTag, id: 'deleteRiskConfiguration', method: 'delete', path: CONFIG, permission: MANAGE, summary: 'Reset the tenant\'s risk configuration to the defaults',
    description: 'Answers the configuration now in force (the defaults).', kind: 'single', response: RiskConfigurationSchema,
    handler: (ctx) => configuration.resetRiskConfiguration(ctx),
  }),

  defineOperation({
    ...listTag, id: 'createListGroup', method: 'post', path: LISTS, permission: MANAGE, summary: 'Create a list group',
    description: `A block or allow list of one entry type (card_fingerprint, email, email_domain, ip, bin, country, customer_reference). ${SCOPE_NOTE}`,
    kind: 'single', status: 201, body: CreateListGroupBody, response: ListGroupSchema, handler: (ctx, { body }) => lists.createListGroup(ctx, body),
  }),
  defineOperation({
    ...listTag, id: 'listListGroups', method: 'get', path: LISTS, permission: VIEW, summary: 'List list groups',
    description: 'Filters: entryType, tenantId (platform callers).', kind: 'list', query: ListListGroupsQuery, response: ListGroupSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) => lists.listListGroups(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    ...listTag, id: 'getListGroup', method: 'get', path: `${LISTS}/{id}`, permission: VIEW, summary: 'Get a list group',
    kind: 'single', params: ListGroupParams, response: ListGroupSchema, handler: (ctx, { params }) => lists.getListGroup(ctx, params.id),
  }),
  defineOperation({
    ...listTag, id: 'updateListGroup', method: 'patch', path: `${LISTS}/{id}`, permission: MANAGE, summary: 'Update a list group',
    kind: 'single', params: ListGroupParams, body: UpdateListGroupBody, response: ListGroupSchema,
    handler: (ctx, { params, body }) => lists.updateListGroup(ctx, params.id, body),
  }),
  defineOperation({
    ...listTag, id: 'deleteListGroup', method: 'delete', path: `${LISTS}/{id}`, permission: MANAGE, summary: 'Delete a list group and its entries',
    description: 'Soft delete; its entries are deleted in the same transaction, so rules that name it match nothing in it.',
    kind: 'single', params: ListGroupParams, response: ListGroupSchema, handler: (ctx, { params }) => lists.deleteListGroup(ctx, params.id),
  }),
  defineOperation({
    ...listTag, id: 'createListEntry', method: 'post', path: `${LISTS}/{id}/entries`, permission: MANAGE, summary: 'Add an entry to a list group',
    description: 'The value is checked and normalized for the group\'s entry type (400 naming body.value); 409 LIST_ENTRY_EXISTS when the group already holds it. Takes effect from the next payment.',
    kind: 'single', status: 201, params: ListGroupParams, body: CreateListEntryBody, response: ListEntrySchema,
    handler: (ctx, { params, body }) => lists.addListEntry(ctx, params.id, body),
  }),
  defineOperation({
    ...listTag, id: 'listListEntries', method: 'get', path: `${LISTS}/{id}/entries`, permission: VIEW, summary: 'List the entries of a list group',
    kind: 'list', params: ListGroupParams, query: ListEntriesQuery, response: ListEntrySchema,
    handler: (ctx, { params, query: { cursor, limit, sortOrder, ...filters } }) => lists.listListEntries(ctx, params.id, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    ...listTag, id: 'deleteListEntry', method: 'delete', path: `${LISTS}/{id}/entries/{entryId}`, permission: MANAGE, summary: 'Delete an entry of a list group',
    kind: 'single', params: ListEntryParams, response: ListEntrySchema,
    handler: (ctx, { params }) => lists.deleteListEntry(ctx, params.id, params.entryId),
  }),
];

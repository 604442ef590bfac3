import { pathRecord } from '../references';
import { defineOperation, type Operation } from '../registry';
import { idParams } from '../common';
import * as rules from '../../services/routing/rules';
import {
  CreateRoutingRuleBody,
  ListRoutingRuleVersionsQuery,
  ListRoutingRulesQuery,
  RoutingRuleSchema,
  UpdateRoutingRuleBody,
} from './schemas';

const common = { levels: ['T', 'P'] as ('T' | 'P')[], tag: 'Routing rules' };
const MANAGE = 'processing:routing:manage';
const VIEW = 'processing:routing:view';
const BASE = '/v1/admin/routing-rules';

/** Routing rules (versioned: draft, active, archived). */
export const routingOperations: Operation[] = [
  defineOperation({
    ...common,
    id: 'createRoutingRule',
    method: 'post',
    path: BASE,
    permission: MANAGE,
    summary: 'Create a routing rule (draft, version 1)',
    description:
      "Starts as a draft, version 1 of a new rule (ruleId = id). Referenced merchants, channels and terminals must be the tenant's (terminals: payin ones): 400 naming the field otherwise. Platform callers name the tenant (tenantId).",
    kind: 'single',
    status: 201,
    body: CreateRoutingRuleBody,
    response: RoutingRuleSchema,
    handler: (ctx, { body }) => rules.createRoutingRule(ctx, body),
  }),
  defineOperation({
    ...common,
    id: 'listRoutingRules',
    method: 'get',
    path: BASE,
    permission: VIEW,
    summary: 'List routing rule versions',
    description: 'Every version of every rule; filters: status, ruleId, name (contains, case-insensitive).',
    kind: 'list',
    query: ListRoutingRulesQuery,
    response: RoutingRuleSchema,
    handler: (ctx, { query: { cursor, limit, sortOrder, ...filters } }) =>
      rules.listRoutingRules(ctx, filters, { cursor, limit, sortOrder }),
  }),
  defineOperation({
    ...common,
    id: 'getRoutingRule',
    method: 'get',
    path: `${BASE}/{id}`,
    permission: VIEW,
    summary: 'Get a routing rule version',
    kind: 'single',
    params: idParams,
    response: RoutingRuleSchema,
    handler: (ctx, { params }) => rules.getRoutingRule(ctx, params.id),
  }),
  defineOperation({
    ...common,
    id: 'listRoutingRuleVersions',
    method: 'get',
    path: `${BASE}/{id}/versions`,
    permission: VIEW,
    summary: 'List the versions of a routing rule',
    description: 'All versions sharing the ruleId of version {id}.',
    kind: 'list',
    params: idParams,
    query: ListRoutingRuleVersionsQuery,
    response: RoutingRuleSchema,
    handler: (ctx, { params, query }) => rules.listRoutingRuleVersions(ctx, params.id, query),
  }),
  defineOperation({
    ...common,
    id: 'updateRoutingRule',
    method: 'patch',
    path: `${BASE}/{id}`,
    permission: MANAGE,
    summary: 'Update a draft routing rule version',
    description: '409 ROUTING_RULE_NOT_DRAFT unless the version is a draft. conditions and outcome replace the whole value.',
    kind: 'single',
    params: pathRecord('routingRule'),
    body: UpdateRoutingRuleBody,
    response: RoutingRuleSchema,
    handler: (ctx, { params, body }) => rules.updateRoutingRule(ctx, params.id, body),
  }),
  defineOperation({
    ...common,
    id: 'deleteRoutingRule',
    method: 'delete',
    path: `${BASE}/{id}`,
    permission: MANAGE,
    summary: 'Delete a draft routing rule version',
    description: 'Soft delete; 409 ROUTING_RULE_NOT_DRAFT unless the version is a draft.',
    kind: 'single',
    params: idParams,
    response: RoutingRuleSchema,
    handler: (ctx, { params }) => rules.deleteRoutingRule(ctx, params.id),
  }),
  defineOperation({
    ...common,
    id: 'activateRoutingRule',
    method: 'post',
    path: `${BASE}/{id}/activate`,
    permission: MANAGE,
    summary: 'Activate a draft routing rule version',
    description:
      "draft -> active (activatedAt set); the rule's previously active version is archived in the same transaction. 409 INVALID_STATE_TRANSITION unless the version is a draft.",
    kind: 'single',
    params: idParams,
    response: RoutingRuleSchema,
    handler: (ctx, { params }) => rules.activateRoutingRule(ctx, params.id),
  }),
  defineOperation({
    ...common,
    id: 'archiveRoutingRule',
    method: 'post',
    path: `${BASE}/{id}/archive`,
    permission: MANAGE,
    summary: 'Archive the active routing rule version',
    description: 'active -> archived (archivedAt set); 409 INVALID_STATE_TRANSITION otherwise.',
    kind: 'single',
    params: idParams,
    response: RoutingRuleSchema,
    handler: (ctx, { params }) => rules.archiveRoutingRule(ctx, params.id),
  }),
  defineOperation({
    ...common,
    id: 'cloneRoutingRule',
    method: 'post',
    path: `${BASE}/{id}/clone`,
    permission: MANAGE,
    summary: 'Clone a routing rule version into a new draft',
    description:
      "From any version: a new draft version of the same rule (version = the rule's highest + 1) with its name, priority, conditions and outcome.",
    kind: 'single',
    status: 201,
    params: idParams,
    response: RoutingRuleSchema,
    handler: (ctx, { params }) => rules.cloneRoutingRule(ctx, params.id),
  }),
];

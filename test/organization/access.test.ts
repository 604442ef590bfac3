import { useApiHarness, expectProblem } from '../helpers/api';
import { dialectName } from '../helpers/db';
import { createSandbox, type SandboxCredentials } from '../../src/services/sandbox/provision';
import { acceptInvitation } from '../../src/services/access/invitations';

let tenantKey: string;
let merchantKey: string;
let platform: string;
let other: SandboxCredentials;

const h = useApiHarness();
beforeAll(async () => {
  tenantKey = h.sandbox.tenantKey.secretKey;
  merchantKey = h.sandbox.merchantKey.secretKey;
  platform = h.sandbox.platformToken;
  other = await createSandbox(h.rt, { name: 'Other tenant' });
});
// user tokens live at most PAYPLANE_TOKEN_MAX_LIFETIME_HOURS (24 h) and the tests move the clock past invitations'
// expiry: each test takes a platform token issued at its own start
beforeEach(async () => {
  platform = (await h.rt.tokens.issue(h.sandbox.platformUserId, 24 * 3600, false)).token;
});

let emails = 0;
const email = (tag: string) => `${tag}-${++emails}@example.com`;

async function tokenOf(userId: string): Promise<string> {
  return (await h.rt.tokens.issue(userId, 3600, false)).token;
}

/** Invites through the API as `caller`, accepts through the service, returns the user id and a token. */
async function activeUser(caller: string, body: Record<string, unknown>): Promise<{ id: string; token: string }> {
  const res = await h.as(caller).post('/v1/users/invite', { email: email('u'), ...body });
  if (res.status !== 201) throw new Error(`invite: ${res.status} ${JSON.stringify(res.body)}`);
  await acceptInvitation(h.rt, res.body.data.invitation.token, `idp|${res.body.data.user.id}`);
  return { id: res.body.data.user.id, token: await tokenOf(res.body.data.user.id) };
}

async function role(caller: string, body: Record<string, unknown>): Promise<string> {
  const res = await h.as(caller).post('/v1/roles', { name: `role-${++emails}`, ...body });
  if (res.status !== 201) throw new Error(`role: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.id;
}

describe(`roles and permissions (${dialectName})`, () => {
  test('create, list, get, update and delete a role; codes outside the layer are 400 naming the field', async () => {
    const created = await h.as(tenantKey).post('/v1/roles', {
      name: 'Support',
      description: 'reads payments',
      permissions: ['payments:payments:view', 'access:users:view', 'payments:payments:view'],
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      name: 'Support',
      description: 'reads payments',
      layer: 'operator',
      tenantId: h.sandbox.tenantId,
      merchantId: null,
      permissions: ['access:users:view', 'payments:payments:view'],
      deletedAt: null,
    });
    const id = created.body.data.id;
    expect((await h.as(tenantKey).get(`/v1/roles/${id}`)).body.data).toEqual(created.body.data);
    const list = await h.as(tenantKey).get('/v1/roles?layer=operator');
    expect(list.body.data.map((r: { id: string }) => r.id)).toContain(id);

    const patched = await h.as(tenantKey).patch(`/v1/roles/${id}`, { name: 'Support L1', permissions: ['payments:payments:view'] });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ name: 'Support L1', permissions: ['payments:payments:view'] });
    expectProblem(await h.as(tenantKey).patch(`/v1/roles/${id}`, {}), 400);
    expectProblem(await h.as(tenantKey).post('/v1/roles', { name: 'Support L1', permissions: [] }), 409, 'ROLE_NAME_TAKEN');

    const bad = await h
      .as(tenantKey)
      .post('/v1/roles', { name: 'Bad', permissions: ['payments:payments:view', 'processing:providers:manage', 'no:such:code'] });
    expectProblem(bad, 400, 'INVALID_PERMISSIONS');
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.permissions[1]', 'body.permissions[2]']);
    expectProblem(await h.as(tenantKey).post('/v1/roles', { name: 'P', layer: 'platform', permissions: [] }), 400, 'LAYER_NOT_ALLOWED');
    expectProblem(await h.as(tenantKey).post('/v1/roles', { name: 'X', permissions: [], extra: 1 }), 400);

    const deleted = await h.as(tenantKey).delete(`/v1/roles/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.deletedAt).not.toBeNull();
    expectProblem(await h.as(tenantKey).get(`/v1/roles/${id}`), 404);
    expectProblem(await h.as(tenantKey).delete(`/v1/roles/${id}`), 404);
  });

  test("a tenant creates merchant roles for its own merchants only; a merchant sees its merchant's roles only", async () => {
    const mrole = await h.as(tenantKey).post('/v1/roles', {
      name: 'Merchant viewer',
      layer: 'merchant',
      merchantId: h.sandbox.merchantId,
      permissions: ['payments:payments:view'],
    });
    expect(mrole.status).toBe(201);
    expect(mrole.body.data).toMatchObject({ layer: 'merchant', merchantId: h.sandbox.merchantId });
    expectProblem(await h.as(tenantKey).post('/v1/roles', { name: 'N', layer: 'merchant', permissions: [] }), 400);
    const foreign = await h
      .as(tenantKey)
      .post('/v1/roles', { name: 'N', layer: 'merchant', merchantId: other.merchantId, permissions: [] });
    expectProblem(foreign, 404);
    expect(foreign.body.errors[0].path).toBe('body.merchantId');
    // a tenant cannot grant a merchant-only code it does not hold itself
    expectProblem(
      await h.as(tenantKey).post('/v1/roles', { name: 'KYB', merchantId: h.sandbox.merchantId, permissions: ['compliance:kyb:manage'] }),
      403,
      'PERMISSION_NOT_GRANTABLE',
    );

    const own = await h.as(merchantKey).post('/v1/roles', { name: 'Own', permissions: ['compliance:kyb:manage'] });
    expect(own.status).toBe(201);
    expect(own.body.data).toMatchObject({ layer: 'merchant', merchantId: h.sandbox.merchantId, tenantId: h.sandbox.tenantId });
    const seen = (await h.as(merchantKey).get('/v1/roles')).body.data;
    expect(seen.every((r: { merchantId: string }) => r.merchantId === h.sandbox.merchantId)).toBe(true);
    expect(seen.map((r: { id: string }) => r.id)).toEqual(expect.arrayContaining([own.body.data.id, mrole.body.data.id]));
    const operatorRole = await role(tenantKey, { permissions: [] });
    expectProblem(await h.as(merchantKey).get(`/v1/roles/${operatorRole}`), 404);
    expectProblem(await h.as(merchantKey).post('/v1/roles', { name: 'Op', layer: 'operator', permissions: [] }), 400, 'LAYER_NOT_ALLOWED');
  });

  test("GET /v1/permissions lists the codes of the caller's layer with descriptions", async () => {
    const op = await h.as(tenantKey).get('/v1/permissions');
    expect(op.status).toBe(200);
    expect(op.body.data.layer).toBe('operator');
    const codes = op.body.data.permissions.map((p: { code: string }) => p.code);
    expect(codes).toContain('payouts:withdrawals:execute');
    expect(codes).not.toContain('compliance:kyb:manage');
    expect(op.body.data.permissions[0]).toEqual({ code: expect.any(String), description: expect.any(String), grantable: true });

    const m = await h.as(merchantKey).get('/v1/permissions');
    expect(m.body.data.layer).toBe('merchant');
    expect(m.body.data.permissions.map((p: { code: string }) => p.code)).not.toContain('organization:companies:manage');
    expectProblem(await h.as(merchantKey).get('/v1/permissions?layer=operator'), 400);

    const asMerchantLayer = await h.as(tenantKey).get('/v1/permissions?layer=merchant');
    const kyb = asMerchantLayer.body.data.permissions.find((p: { code: string }) => p.code === 'compliance:kyb:manage');
    expect(kyb.grantable).toBe(false);
    expect((await h.as(platform).get('/v1/permissions')).body.data.layer).toBe('platform');
  });
});

describe(`users and invitations (${dialectName})`, () => {
  test('invite creates a pending user and an invitation whose token is shown once; the user cannot authenticate until it accepts', async () => {
    const viewer = await role(tenantKey, { permissions: ['access:users:view', 'access:roles:view'] });
    const res = await h.as(tenantKey).post('/v1/users/invite', { email: 'Alice@Example.com', displayName: 'Alice', roleIds: [viewer] });
    expect(res.status).toBe(201);
    const { user, invitation } = res.body.data;
    expect(user).toMatchObject({
      email: 'alice@example.com',
      displayName: 'Alice',
      status: 'pending_invitation',
      layer: 'operator',
      tenantId: h.sandbox.tenantId,
      merchantId: null,
      externalIdpId: null,
      roleIds: [viewer],
      entityScope: { type: 'all' },
      isOwner: false,
      mfaEnabled: false,
    });
    expect(invitation).toMatchObject({ userId: user.id, status: 'pending', email: 'alice@example.com', sentCount: 1 });
    expect(invitation.token).toMatch(/^inv_[A-Za-z0-9]{40}$/);
    expect(new Date(invitation.expiresAt).getTime() - h.clock.now().getTime()).toBe(7 * 86_400_000);

    // the token is never shown again nor kept in the audit trail
    const listed = await h.as(tenantKey).get(`/v1/invitations?userId=${user.id}`);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0].token).toBeUndefined();
    const audit = await h.as(tenantKey).get(`/v1/audit-entries?targetId=${user.id}`);
    expect(audit.body.data.map((e: { action: string }) => e.action)).toContain('user.invited');
    const everything = JSON.stringify((await h.as(tenantKey).get('/v1/audit-entries?limit=100')).body);
    expect(everything).not.toContain(invitation.token);
    expectProblem(await h.as(tenantKey).post('/v1/users/invite', { email: 'alice@example.com' }), 409, 'USER_ALREADY_EXISTS');
    // an Idempotency-Key replay never shows a token again
    const keyed = () => h.as(tenantKey).post('/v1/users/invite', { email: 'keyed@example.com' }).set('Idempotency-Key', 'invite-keyed-1');
    const first = await keyed();
    expect(first.status).toBe(201);
    const replay = await keyed();
    expectProblem(replay, 409, 'INVITATION_ALREADY_ISSUED');
    expect(replay.body.instance).toBe(first.body.data.invitation.id);
    expect(JSON.stringify(replay.body)).not.toContain(first.body.data.invitation.token);

    const token = await tokenOf(user.id);
    expectProblem(await h.as(token).get('/v1/users'), 401, 'USER_NOT_ACTIVE');

    const accepted = await acceptInvitation(h.rt, invitation.token, 'idp|alice');
    expect(accepted.user).toMatchObject({ status: 'active', externalIdpId: 'idp|alice' });
    expect(accepted.invitation.status).toBe('accepted');
    // the role's permissions only: it may list users, not create roles nor read API keys
    expect((await h.as(token).get('/v1/users')).status).toBe(200);
    expect((await h.as(token).get(`/v1/users/${user.id}`)).body.data.status).toBe('active');
    expectProblem(await h.as(token).post('/v1/roles', { name: 'Mine', permissions: [] }), 403);
    expectProblem(await h.as(token).get('/v1/api-keys'), 403);

    await expect(acceptInvitation(h.rt, invitation.token, 'idp|alice2')).rejects.toMatchObject({
      status: 409,
      code: 'INVITATION_ALREADY_ACCEPTED',
    });
    expect((await h.as(tenantKey).get(`/v1/invitations?userId=${user.id}&status=accepted`)).body.data).toHaveLength(1);
  });

  test('cancel, resend and expiry of invitations; an old, canceled or expired token is refused', async () => {
    const a = (await h.as(tenantKey).post('/v1/users/invite', { email: email('a') })).body.data;
    const resent = await h.as(tenantKey).post(`/v1/invitations/${a.invitation.id}/resend`);
    expect(resent.status).toBe(200);
    expect(resent.body.data).toMatchObject({ id: a.invitation.id, status: 'pending', sentCount: 2 });
    expect(resent.body.data.token).not.toBe(a.invitation.token);
    await expect(acceptInvitation(h.rt, a.invitation.token, 'idp|a-old')).rejects.toMatchObject({
      status: 404,
      code: 'INVITATION_NOT_FOUND',
    });

    const cancel = await h.as(tenantKey).post(`/v1/invitations/${a.invitation.id}/cancel`);
    expect(cancel.status).toBe(200);
    expect(cancel.body.data).toMatchObject({ status: 'canceled', canceledAt: expect.any(String) });
    expectProblem(await h.as(tenantKey).post(`/v1/invitations/${a.invitation.id}/cancel`), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await h.as(tenantKey).post(`/v1/invitations/${a.invitation.id}/resend`), 409, 'INVALID_STATE_TRANSITION');
    await expect(acceptInvitation(h.rt, resent.body.data.token, 'idp|a')).rejects.toMatchObject({
      status: 409,
      code: 'INVITATION_CANCELED',
    });

    const b = (await h.as(tenantKey).post('/v1/users/invite', { email: email('b') })).body.data;
    h.clock.advance(7 * 86_400_000 + 1000);
    expect((await h.as(tenantKey).get(`/v1/invitations?status=expired&userId=${b.user.id}`)).body.data).toHaveLength(1);
    expect((await h.as(tenantKey).get(`/v1/invitations?status=pending&userId=${b.user.id}`)).body.data).toHaveLength(0);
    await expect(acceptInvitation(h.rt, b.invitation.token, 'idp|b')).rejects.toMatchObject({ status: 409, code: 'INVITATION_EXPIRED' });
    expectProblem(await h.as(tenantKey).post(`/v1/invitations/${b.invitation.id}/cancel`), 409);
    const again = await h.as(tenantKey).post(`/v1/invitations/${b.invitation.id}/resend`);
    expect(again.body.data.status).toBe('pending');
    const done = await acceptInvitation(h.rt, again.body.data.token, 'idp|b');
    expect(done.user.status).toBe('active');
    await expect(acceptInvitation(h.rt, 'inv_nonsense', 'idp|x')).rejects.toMatchObject({ status: 400 });
    // an identity binds one user only
    const c = (await h.as(tenantKey).post('/v1/users/invite', { email: email('c') })).body.data;
    await expect(acceptInvitation(h.rt, c.invitation.token, 'idp|b')).rejects.toMatchObject({ status: 409, code: 'IDP_SUBJECT_IN_USE' });
  });

  test("update, disable, enable and delete; a disabled or deleted user's token stops working at once", async () => {
    const admin = await role(tenantKey, { permissions: ['access:users:manage', 'access:roles:manage'] });
    const reader = await role(tenantKey, { permissions: ['access:users:view'] });
    const boss = await activeUser(tenantKey, { roleIds: [admin] });
    const worker = await activeUser(tenantKey, { roleIds: [reader] });

    const patched = await h
      .as(tenantKey)
      .patch(`/v1/users/${worker.id}`, { displayName: 'Worker', mfaEnabled: true, roleIds: [reader, admin] });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ displayName: 'Worker', mfaEnabled: true, roleIds: [reader, admin].sort() });
    expectProblem(await h.as(tenantKey).patch(`/v1/users/${worker.id}`, { entityScope: { type: 'merchants', merchantIds: [] } }), 400);
    expectProblem(await h.as(tenantKey).patch(`/v1/users/${worker.id}`, {}), 400);
    expectProblem(await h.as(tenantKey).patch(`/v1/users/${worker.id}`, { roleIds: [reader], status: 'active' }), 400);

    // roles apply at once: the worker may now create roles
    expect((await h.as(worker.token).post('/v1/roles', { name: `w-${++emails}`, permissions: ['access:users:view'] })).status).toBe(201);

    const disabled = await h.as(boss.token).post(`/v1/users/${worker.id}/disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.body.data.status).toBe('disabled');
    expectProblem(await h.as(worker.token).get('/v1/users'), 401, 'USER_NOT_ACTIVE');
    expectProblem(await h.as(boss.token).post(`/v1/users/${worker.id}/disable`), 409, 'INVALID_STATE_TRANSITION');
    expectProblem(await h.as(boss.token).post(`/v1/users/${boss.id}/disable`), 409, 'CANNOT_DISABLE_SELF');
    expectProblem(await h.as(boss.token).delete(`/v1/users/${boss.id}`), 409, 'CANNOT_DELETE_SELF');
    const enabled = await h.as(boss.token).post(`/v1/users/${worker.id}/enable`);
    expect(enabled.body.data.status).toBe('active');
    expect((await h.as(worker.token).get('/v1/users')).status).toBe(200);
    expectProblem(await h.as(boss.token).post(`/v1/users/${worker.id}/enable`), 409, 'INVALID_STATE_TRANSITION');

    const pending = (await h.as(tenantKey).post('/v1/users/invite', { email: email('p'), roleIds: [reader] })).body.data;
    expectProblem(await h.as(tenantKey).post(`/v1/users/${pending.user.id}/disable`), 409, 'INVALID_STATE_TRANSITION');

    // a role in use cannot be deleted
    expectProblem(await h.as(tenantKey).delete(`/v1/roles/${reader}`), 409, 'ROLE_IN_USE');

    const gone = await h.as(boss.token).delete(`/v1/users/${worker.id}`);
    expect(gone.status).toBe(200);
    expect(gone.body.data.deletedAt).not.toBeNull();
    expectProblem(await h.as(worker.token).get('/v1/users'), 401, 'UNKNOWN_USER');
    expectProblem(await h.as(tenantKey).get(`/v1/users/${worker.id}`), 404);

    expect((await h.as(tenantKey).delete(`/v1/users/${pending.user.id}`)).status).toBe(200);
    const inv = (await h.as(tenantKey).get(`/v1/invitations?userId=${pending.user.id}`)).body.data[0];
    expect(inv.status).toBe('canceled');
    expect((await h.as(tenantKey).delete(`/v1/roles/${reader}`)).status).toBe(200);

    const actions = (await h.as(tenantKey).get(`/v1/audit-entries?targetId=${worker.id}&limit=100`)).body.data.map(
      (e: { action: string }) => e.action,
    );
    expect(actions).toEqual(
      expect.arrayContaining(['user.invited', 'user.activated', 'user.updated', 'user.disabled', 'user.enabled', 'user.deleted']),
    );
  });

  test('role escalation is impossible for a merchant-layer user', async () => {
    const admin = await role(merchantKey, { permissions: ['access:roles:manage', 'access:users:manage'] });
    const payments = await role(merchantKey, { permissions: ['payments:payments:manage'] });
    const m = await activeUser(merchantKey, { roleIds: [admin] });
    // an operator code: 400 naming the field
    const op = await h
      .as(m.token)
      .post('/v1/roles', { name: 'Escalate', permissions: ['access:users:view', 'organization:companies:manage'] });
    expectProblem(op, 400, 'INVALID_PERMISSIONS');
    expect(op.body.errors).toEqual([{ path: 'body.permissions[1]', message: expect.stringContaining('merchant layer') }]);
    expectProblem(await h.as(m.token).post('/v1/roles', { name: 'Escalate', layer: 'operator', permissions: [] }), 400);
    // a merchant code it lacks: 403
    const lacking = await h.as(m.token).post('/v1/roles', { name: 'Escalate', permissions: ['payments:payments:manage'] });
    expectProblem(lacking, 403, 'PERMISSION_NOT_GRANTABLE');
    expect(lacking.body.errors[0].path).toBe('body.permissions[0]');
    // inviting someone into a role holding codes it lacks: 403
    const invite = await h.as(m.token).post('/v1/users/invite', { email: email('esc'), roleIds: [admin, payments] });
    expectProblem(invite, 403, 'PERMISSION_NOT_GRANTABLE');
    expect(invite.body.errors[0].path).toBe('body.roleIds[1]');
    expectProblem(await h.as(m.token).post('/v1/users/invite', { email: email('esc'), owner: true }), 403, 'PERMISSION_NOT_GRANTABLE');
    // nor giving itself the role, nor widening a role it can edit
    expectProblem(await h.as(m.token).patch(`/v1/users/${m.id}`, { roleIds: [admin, payments] }), 403, 'PERMISSION_NOT_GRANTABLE');
    expectProblem(
      await h
        .as(m.token)
        .patch(`/v1/roles/${admin}`, { permissions: ['access:roles:manage', 'access:users:manage', 'payments:payments:manage'] }),
      403,
      'PERMISSION_NOT_GRANTABLE',
    );
    expectProblem(await h.as(m.token).patch(`/v1/roles/${payments}`, { permissions: [] }), 403, 'PERMISSION_NOT_GRANTABLE');
    // nothing was created
    expect((await h.as(merchantKey).get(`/v1/users?email=${encodeURIComponent(`esc-${emails}@example.com`)}`)).body.data).toHaveLength(0);
    // the invited merchant user acts within its merchant and holds the role's codes only
    expectProblem(await h.as(m.token).get('/v1/api-keys'), 403);
    const invited = await h.as(m.token).post('/v1/users/invite', { email: email('ok'), roleIds: [admin] });
    expect(invited.status).toBe(201);
    expect(invited.body.data.user).toMatchObject({ layer: 'merchant', merchantId: h.sandbox.merchantId });
    // a stronger peer (an owner) cannot be changed by it
    const owner = (await h.as(merchantKey).post('/v1/users/invite', { email: email('owner'), owner: true })).body.data.user;
    expect(owner.isOwner).toBe(true);
    expectProblem(await h.as(m.token).delete(`/v1/users/${owner.id}`), 403, 'USER_NOT_MANAGEABLE');
  });

  test("visibility: merchants see their merchant's users, tenants their tenant's, the platform everyone; invisible is 404", async () => {
    const opUser = (await h.as(tenantKey).post('/v1/users/invite', { email: email('vis-op') })).body.data.user;
    const mUser = (await h.as(tenantKey).post('/v1/users/invite', { email: email('vis-m'), merchantId: h.sandbox.merchantId })).body.data;
    expect(mUser.user).toMatchObject({ layer: 'merchant', merchantId: h.sandbox.merchantId });
    const foreign = (await h.as(other.tenantKey.secretKey).post('/v1/users/invite', { email: email('vis-x') })).body.data;
    const foreignRole = await role(other.tenantKey.secretKey, { permissions: [] });

    const merchantSees = (await h.as(merchantKey).get('/v1/users?limit=100')).body.data;
    expect(merchantSees.every((u: { merchantId: string }) => u.merchantId === h.sandbox.merchantId)).toBe(true);
    expect(merchantSees.map((u: { id: string }) => u.id)).toContain(mUser.user.id);
    expectProblem(await h.as(merchantKey).get(`/v1/users/${opUser.id}`), 404);
    expectProblem(await h.as(merchantKey).post(`/v1/users/${opUser.id}/disable`), 404);
    expect((await h.as(merchantKey).get(`/v1/invitations?userId=${mUser.user.id}`)).body.data).toHaveLength(1);

    const tenantSees = (await h.as(tenantKey).get('/v1/users?limit=100')).body.data.map((u: { id: string }) => u.id);
    expect(tenantSees).toEqual(expect.arrayContaining([opUser.id, mUser.user.id]));
    expect(tenantSees).not.toContain(foreign.user.id);
    expectProblem(await h.as(tenantKey).get(`/v1/users/${foreign.user.id}`), 404);
    expectProblem(await h.as(tenantKey).patch(`/v1/users/${foreign.user.id}`, { displayName: 'x' }), 404);
    expectProblem(await h.as(tenantKey).delete(`/v1/users/${foreign.user.id}`), 404);
    expectProblem(await h.as(tenantKey).post(`/v1/invitations/${foreign.invitation.id}/cancel`), 404);
    expectProblem(await h.as(tenantKey).post(`/v1/invitations/${foreign.invitation.id}/resend`), 404);
    expectProblem(await h.as(tenantKey).get(`/v1/roles/${foreignRole}`), 404);
    const withForeignRole = await h.as(tenantKey).post('/v1/users/invite', { email: email('fr'), roleIds: [foreignRole] });
    expectProblem(withForeignRole, 404);
    expect(withForeignRole.body.errors[0].path).toBe('body.roleIds[0]');
    expectProblem(await h.as(tenantKey).post('/v1/users/invite', { email: email('fm'), merchantId: other.merchantId }), 404);
    // a merchant cannot invite elsewhere, nor a tenant platform users
    expectProblem(await h.as(merchantKey).post('/v1/users/invite', { email: email('mm'), merchantId: other.merchantId }), 404);
    expectProblem(await h.as(merchantKey).post('/v1/users/invite', { email: email('mo'), layer: 'operator' }), 400, 'LAYER_NOT_ALLOWED');
    expectProblem(await h.as(tenantKey).post('/v1/users/invite', { email: email('tp'), layer: 'platform' }), 400, 'LAYER_NOT_ALLOWED');
    // an operator role cannot be given to a merchant user
    const opRole = await role(tenantKey, { permissions: [] });
    expectProblem(await h.as(tenantKey).patch(`/v1/users/${mUser.user.id}`, { roleIds: [opRole] }), 400, 'ROLE_NOT_ASSIGNABLE');

    const all = await h.as(platform).get('/v1/users?limit=100');
    const ids = all.body.data.map((u: { id: string }) => u.id);
    expect(ids).toEqual(expect.arrayContaining([opUser.id, foreign.user.id, h.sandbox.platformUserId]));
    expect(
      (await h.as(platform).get(`/v1/users?layer=platform&limit=100`)).body.data.every((u: { layer: string }) => u.layer === 'platform'),
    ).toBe(true);
    const p = await h.as(platform).post('/v1/users/invite', { email: email('plat') });
    expect(p.body.data.user).toMatchObject({ layer: 'platform', tenantId: null });
    expect((await h.as(platform).get(`/v1/users/${foreign.user.id}`)).status).toBe(200);
  });

  test('the sandbox owner keeps every permission of its layer; list filters and pagination', async () => {
    const me = await h.as(platform).get(`/v1/users/${h.sandbox.platformUserId}`);
    expect(me.body.data).toMatchObject({ isOwner: true, status: 'active', layer: 'platform', roleIds: [] });
    expect((await h.as(platform).get('/v1/admin/tenants')).status).toBe(200);
    const page1 = await h.as(tenantKey).get('/v1/users?limit=2&status=pending_invitation');
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.data.every((u: { status: string }) => u.status === 'pending_invitation')).toBe(true);
    const page2 = await h.as(tenantKey).get(`/v1/users?limit=2&status=pending_invitation&cursor=${page1.body.pagination.nextCursor}`);
    expect(page2.body.data[0].id).not.toBe(page1.body.data[0].id);
    expectProblem(await h.as(tenantKey).get('/v1/users?status=sleeping'), 400);
    expectProblem(await h.as(tenantKey).post('/v1/users/invite', { email: 'not-an-email' }), 400);
  });
});

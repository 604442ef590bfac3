import { dialectName } from '../helpers/db';
import { useCliSandbox } from '../helpers/cli';

const s = useCliSandbox({ sandbox: { name: 'Access CLI tenant' }, runtime: true });
const cli = s.cli;

describe(`payplane users and roles (${dialectName})`, () => {
  test('roles, invite, accept-invitation, then the escalation refusals as that merchant user', async () => {
    const admin = await cli(
      'roles',
      'create',
      '--merchant',
      s.sandbox.merchantId,
      '--name',
      'Admin',
      '--permission',
      'access:roles:manage',
      '--permission',
      'access:users:manage',
      '--json',
    );
    expect(admin.status).toBe(0);
    expect(admin.json().layer).toBe('merchant');
    const payments = (
      await cli(
        'roles',
        'create',
        '--merchant',
        s.sandbox.merchantId,
        '--name',
        'Payments',
        '--permission',
        'payments:payments:manage',
        '--json',
      )
    ).json();

    const invited = await cli(
      'users',
      'invite',
      '--merchant',
      s.sandbox.merchantId,
      '--email',
      'cli-admin@example.com',
      '--role',
      admin.json().id,
      '--json',
    );
    expect(invited.status).toBe(0);
    const { user, invitation } = invited.json();
    expect(user).toMatchObject({
      status: 'pending_invitation',
      layer: 'merchant',
      merchantId: s.sandbox.merchantId,
      roleIds: [admin.json().id],
    });
    expect(invitation.token).toMatch(/^inv_/);

    const human = await cli('users', 'invite', '--tenant', s.sandbox.tenantId, '--email', 'ops@example.com');
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(/Invitation token \(shown once/);

    // an invited user cannot act before it accepts
    const early = await cli('roles', 'list', '--as-user', user.id, '--json');
    expect(early.status).toBe(3);
    expect(early.json().error.code).toBe('USER_NOT_ACTIVE');

    const accepted = await cli('users', 'accept-invitation', invitation.token, '--idp-subject', 'idp|cli-admin', '--json');
    expect(accepted.status).toBe(0);
    expect(accepted.json().user).toMatchObject({ status: 'active', externalIdpId: 'idp|cli-admin' });

    // escalation through the CLI: an operator code is invalid input, a code the user lacks is refused
    const opCode = await cli(
      'roles',
      'create',
      '--as-user',
      user.id,
      '--name',
      'Esc',
      '--permission',
      'organization:companies:manage',
      '--json',
    );
    expect(opCode.status).toBe(2);
    expect(opCode.json().error).toMatchObject({ code: 'INVALID_PERMISSIONS', errors: [{ path: 'body.permissions[0]' }] });
    const lacking = await cli('users', 'invite', '--as-user', user.id, '--email', 'esc@example.com', '--role', payments.id, '--json');
    expect(lacking.status).toBe(3);
    expect(lacking.json().error.code).toBe('PERMISSION_NOT_GRANTABLE');
    const ok = await cli('users', 'invite', '--as-user', user.id, '--email', 'teammate@example.com', '--role', admin.json().id, '--json');
    expect(ok.status).toBe(0);

    const table = await cli('users', 'list', '--tenant', s.sandbox.tenantId);
    expect(table.stdout).toContain('ops@example.com');
    expect(table.stdout).toContain('cli-admin@example.com');
    expect(table.stdout).toContain('teammate@example.com');

    expect((await cli('users', 'disable', user.id, '--yes', '--json')).json().status).toBe('disabled');
    expect((await cli('users', 'enable', user.id, '--json')).json().status).toBe('active');
    const updated = await cli('users', 'update', user.id, '--role', admin.json().id, '--role', payments.id, '--json');
    expect(updated.json().roleIds.sort()).toEqual([admin.json().id, payments.id].sort());

    const inUse = await cli('roles', 'delete', payments.id, '--yes', '--json');
    expect(inUse.status).toBe(5);
    expect(inUse.json().error.code).toBe('ROLE_IN_USE');
    expect((await cli('roles', 'update', payments.id, '--name', 'Payments team', '--json')).json().name).toBe('Payments team');
    expect((await cli('roles', 'list', '--merchant', s.sandbox.merchantId, '--json')).json().data).toHaveLength(2);
  });

  test('invitations list, resend and cancel; delete a user', async () => {
    const { user, invitation } = (
      await cli('users', 'invite', '--tenant', s.sandbox.tenantId, '--email', 'later@example.com', '--json')
    ).json();
    const pending = await cli('users', 'invitations', 'list', '--tenant', s.sandbox.tenantId, '--status', 'pending', '--json');
    expect(pending.json().data.map((i: { id: string }) => i.id)).toContain(invitation.id);
    const resent = (await cli('users', 'invitations', 'resend', invitation.id, '--json')).json();
    expect(resent.token).not.toBe(invitation.token);
    const old = await cli('users', 'accept-invitation', invitation.token, '--idp-subject', 'idp|later', '--json');
    expect(old.status).toBe(4);
    expect((await cli('users', 'invitations', 'cancel', invitation.id, '--yes', '--json')).json().status).toBe('canceled');
    const deleted = await cli('users', 'delete', user.id, '--yes', '--json');
    expect(deleted.status).toBe(0);
    expect(deleted.json().deletedAt).not.toBeNull();
    expect((await cli('users', 'get', user.id, '--json')).status).toBe(4);
  });
});

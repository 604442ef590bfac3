import { sandboxBanner } from '../../src/cli/sandbox/banner';

const sandbox = {
  databaseUrl: 'sqlite:/tmp/x.db',
  tenantId: 't-1',
  companyId: 'c-1',
  merchantId: 'm-1',
  terminalId: 'x',
  payoutChannelId: 'x',
  payoutTerminalId: 'x',
  tenantKey: { id: 'k1', secretKey: 'sk_test_aaaaaaaaaaaaaaaa_tenantsecretpart' },
  merchantKey: { id: 'k2', secretKey: 'sk_test_bbbbbbbbbbbbbbbb_merchantsecretpart' },
  platformUserId: 'u',
  platformToken: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.signaturepart',
  platformTokenExpiresAt: '2030-01-01T00:00:00Z',
};

describe("serve's sandbox banner", () => {
  test('on a terminal: the keys in full and a curl line to paste', () => {
    const text = sandboxBanner({ url: 'http://127.0.0.1:4242', sandbox, file: '/home/x/.payplane/sandbox.json', tty: true }).join('\n');
    expect(text).toContain(`tenant key      ${sandbox.tenantKey.secretKey}`);
    expect(text).toContain(`merchant key    ${sandbox.merchantKey.secretKey}`);
    expect(text).toContain(`curl -s http://127.0.0.1:4242/v1/api-keys -H "Authorization: Bearer ${sandbox.tenantKey.secretKey}"`);
    expect(text).not.toContain(sandbox.platformToken);
  });

  test('elsewhere (a pipe, a log collector): no secret in full, the file named', () => {
    const text = sandboxBanner({ url: 'http://127.0.0.1:4242', sandbox, file: '/home/x/.payplane/sandbox.json', tty: false }).join('\n');
    for (const secret of [sandbox.tenantKey.secretKey, sandbox.merchantKey.secretKey, sandbox.platformToken])
      expect(text).not.toContain(secret);
    expect(text).toContain('tenant key      sk_test_aaaaaaaa… (full key in the file)');
    expect(text).toContain('saved in /home/x/.payplane/sandbox.json');
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useCliSandbox } from '../helpers/cli';
import { dialectName } from '../helpers/db';

// payplane disputes list|get|update|submit|accept, and `events trigger dispute.*` making real sandbox disputes
// (issue 23, part 1): the built binary on one sandbox.

jest.setTimeout(180_000);

const s = useCliSandbox({ env: { PAYPLANE_SANDBOX_DELAY_MS: '0' } });
const OTHER = '00000000-0000-4000-8000-000000000000';

describe(`payplane disputes (${dialectName})`, () => {
  const ids: Record<string, string> = {};

  test('events trigger dispute.* makes real sandbox disputes with the dispute card: created, updated, won, lost', async () => {
    const { tenantId, merchantId } = s.sandbox;
    for (const [type, status] of [
      ['dispute.created', 'needs_response'],
      ['dispute.updated', 'needs_response'],
      ['dispute.won', 'won'],
      ['dispute.lost', 'lost'],
    ] as const) {
      const res = await s.cli('events', 'trigger', type, '--tenant', tenantId, '--merchant', merchantId, '--json');
      expect([type, res.status, res.stderr]).toEqual([type, 0, '']);
      const out = res.json();
      expect(out).toMatchObject({
        type,
        sample: false,
        tenantId,
        merchantId,
        paymentStatus: 'captured',
        disputeId: expect.any(String),
        disputeStatus: status,
        card: { last4: '0259' },
      });
      expect(out.events.map((e: { type: string }) => e.type)).toContain(type);
      expect(out.events.map((e: { type: string }) => e.type)).toContain('dispute.created');
      ids[type] = out.disputeId;
    }
    const text = await s.cli('events', 'trigger', 'dispute.created', '--tenant', tenantId, '--merchant', merchantId);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/dispute +\S+ \(needs_response\)/);
    expect(text.stdout).toContain('disputes get');
  });

  test('list: a table, filters, --all and --json', async () => {
    const { tenantId, merchantId } = s.sandbox;
    const table = await s.cli('disputes', 'list', '--tenant', tenantId);
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/Reason/);
    expect(table.stdout).toContain('fraudulent');
    expect(table.stdout).toContain('15.00');
    const open = await s.cli(
      'disputes',
      'list',
      '--tenant',
      tenantId,
      '--merchant',
      merchantId,
      '--status',
      'needs_response',
      '--all',
      '--json',
    );
    expect(open.status).toBe(0);
    const rows = open.json().data as { id: string; status: string; fee: unknown }[];
    expect(rows.map((r) => r.id)).toEqual(expect.arrayContaining([ids['dispute.created'], ids['dispute.updated']]));
    expect(rows.every((r) => r.status === 'needs_response')).toBe(true);
    expect(rows[0].fee).toEqual({ currency: 'EUR', valueMinor: 1500 });
    const won = await s.cli('disputes', 'list', '--status', 'won', '--json');
    expect(won.json().data.map((r: { id: string }) => r.id)).toEqual([ids['dispute.won']]);
    const bad = await s.cli('disputes', 'list', '--payment', 'nope', '--json');
    expect(bad.status).toBe(2);
    expect(bad.json().error.errors.map((e: { path: string }) => e.path)).toContain('--payment');
  });

  test('get, update (evidence flags and --evidence-file), submit, accept; wrong states exit 5; --tenant of another is 404', async () => {
    const id = ids['dispute.created'];
    const got = await s.cli('disputes', 'get', id, '--json');
    expect(got.json()).toMatchObject({
      id,
      status: 'needs_response',
      reason: 'fraudulent',
      providerReference: expect.stringMatching(/^sbxdp_/),
    });
    expect((await s.cli('disputes', 'get', id)).stdout).toMatch(/status +needs_response/);

    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-evidence-')), 'evidence.json');
    fs.writeFileSync(file, JSON.stringify({ productDescription: 'From the file', refundPolicy: 'Thirty days' }));
    const updated = await s.cli('disputes', 'update', id, '--evidence-file', file, '--product-description', 'Blue bicycle', '--json');
    expect(updated.status).toBe(0);
    expect(updated.json().evidence).toEqual({ productDescription: 'Blue bicycle', refundPolicy: 'Thirty days' });
    const nothing = await s.cli('disputes', 'update', id, '--json');
    expect(nothing.status).toBe(2);
    fs.writeFileSync(file, JSON.stringify({ shoeSize: '42' }));
    const unknownField = await s.cli('disputes', 'update', id, '--evidence-file', file, '--json');
    expect(unknownField.status).toBe(2);

    const submitted = await s.cli('disputes', 'submit', id, '--uncategorized-text', 'we have losing_evidence', '--json');
    expect(submitted.status).toBe(0);
    expect(submitted.json()).toMatchObject({
      status: 'under_review',
      evidence: { uncategorizedText: 'we have losing_evidence', productDescription: 'Blue bicycle' },
    });
    const again = await s.cli('disputes', 'submit', id, '--json');
    expect(again.status).toBe(5);
    expect(again.json().error.code).toBe('INVALID_STATE_TRANSITION');

    const accepted = await s.cli('disputes', 'accept', ids['dispute.updated'], '--tenant', s.sandbox.tenantId, '--json');
    expect(accepted.status).toBe(0);
    expect(accepted.json()).toMatchObject({ status: 'lost', closedReason: 'accepted' });
    const notYours = await s.cli('disputes', 'get', id, '--tenant', OTHER, '--json');
    expect(notYours.status).toBe(4);
  });

  test('help lists the commands with examples', async () => {
    const [topic, submit] = await Promise.all([s.cli('disputes', '--help'), s.cli('disputes', 'submit', '--help')]);
    for (const cmd of ['list', 'get', 'update', 'submit', 'accept']) expect(topic.stdout).toContain(`disputes ${cmd}`);
    expect(submit.stdout).toContain('EXAMPLES');
    expect(submit.stdout).toContain('--uncategorized-text');
    expect(submit.stdout).toContain('--evidence-file');
  });
});

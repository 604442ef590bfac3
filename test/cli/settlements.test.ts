import fs from 'node:fs';
import path from 'node:path';
import { useCliSandbox } from '../helpers/cli';
import { dialectName } from '../helpers/db';

// payplane settlements list|get|lines|download (issue 23, part 3) and `events trigger settlement.finalized` (a real
// statement finalized for a past day): the built binary on one sandbox.

jest.setTimeout(180_000);

const s = useCliSandbox();
const OTHER = '00000000-0000-4000-8000-000000000000';

describe(`payplane settlements (${dialectName})`, () => {
  let statementId: string;

  test('events trigger settlement.finalized makes a real statement, finalized for a past day', async () => {
    const { tenantId, merchantId } = s.sandbox;
    const res = await s.cli('events', 'trigger', 'settlement.finalized', '--tenant', tenantId, '--merchant', merchantId, '--json');
    expect([res.status, res.stderr]).toEqual([0, expect.anything()]);
    const out = res.json();
    expect(out).toMatchObject({ type: 'settlement.finalized', tenantId, merchantId, sample: false, currency: 'EUR' });
    expect(Date.parse(out.periodStart)).toBeLessThan(Date.now() - 86_400_000);
    expect(out.downloadUrl).toMatch(new RegExp(`^https?://[^/]+/v1/settlements/${out.statementId}/download$`));
    statementId = out.statementId;
    const got = await s.cli('settlements', 'get', statementId, '--json');
    expect(got.status).toBe(0);
    expect(got.json()).toMatchObject({ id: statementId, status: 'finalized', merchantId, periodStart: out.periodStart, currency: 'EUR' });
    expect(got.json().lineCount).toBeGreaterThanOrEqual(1);
    expect(got.json().totals.gross).toEqual({ currency: 'EUR', valueMinor: 2500 });
  });

  test('list: a table by default, --json records, filters, --all', async () => {
    const { tenantId, merchantId } = s.sandbox;
    const table = await s.cli('settlements', 'list', '--tenant', tenantId);
    expect(table.status).toBe(0);
    expect(table.stdout).toContain(statementId);
    expect(table.stdout).toContain('finalized');
    const json = await s.cli(
      'settlements',
      'list',
      '--tenant',
      tenantId,
      '--merchant',
      merchantId,
      '--status',
      'finalized',
      '--all',
      '--json',
    );
    expect(json.status).toBe(0);
    expect(json.json().data.map((st: { id: string }) => st.id)).toContain(statementId);
    const none = await s.cli('settlements', 'list', '--tenant', tenantId, '--status', 'open', '--currency', 'JPY');
    expect(none.stdout).toContain('No settlement statements.');
    const bad = await s.cli('settlements', 'list', '--tenant', tenantId, '--period-from', 'someday', '--json');
    expect(bad.status).toBe(2);
    expect(bad.json().error.errors.map((e: { path: string }) => e.path)).toContain('--period-from');
  });

  test('lines: the payment (and its fee where the schedule charges one); --csv', async () => {
    const lines = await s.cli('settlements', 'lines', statementId, '--all', '--json');
    expect(lines.status).toBe(0);
    const data = lines.json().data as { type: string; sourceType: string; amount: { valueMinor: number }; fee: { valueMinor: number } }[];
    expect(data[0]).toMatchObject({ type: 'payment', sourceType: 'payment' });
    expect(data.reduce((sum, l) => sum + l.amount.valueMinor, 0)).toBe(2500);
    expect(data.filter((l) => l.type !== 'payment').every((l) => l.type === 'fee' || l.type === 'reserve_hold')).toBe(true);
    const csv = await s.cli('settlements', 'lines', statementId, '--csv');
    expect(csv.status).toBe(0);
    expect(csv.stdout.split('\r\n')[0]).toBe('ID,Occurred,Type,Source,Balance,Amount,Fee,Net,Description');
  });

  test('download: to stdout without --output, to a file with it (not overwritten without --force)', async () => {
    const out = await s.cli('settlements', 'download', statementId);
    expect(out.status).toBe(0);
    expect(out.stdout.startsWith('\ufeffrecord,occurred_at,type,')).toBe(true);
    expect(out.stdout).toContain('\r\ntotal,');
    const file = path.join(s.db.home, 'statement.csv');
    const saved = await s.cli('settlements', 'download', statementId, '--output', file, '--json');
    expect(saved.status).toBe(0);
    expect(saved.json()).toMatchObject({ statementId, path: file });
    const bytes = fs.readFileSync(file);
    expect(bytes.toString('utf8')).toBe(out.stdout);
    expect(saved.json().size).toBe(bytes.length);
    const again = await s.cli('settlements', 'download', statementId, '--output', file, '--json');
    expect(again.status).toBe(2);
    expect(again.json().error.code).toBe('FILE_EXISTS');
    expect((await s.cli('settlements', 'download', statementId, '--output', file, '--force')).status).toBe(0);
  });

  test('an id of another tenant or merchant is not found (exit 4)', async () => {
    for (const cmd of ['get', 'lines', 'download']) {
      const res = await s.cli('settlements', cmd, statementId, '--tenant', OTHER, '--json');
      expect([cmd, res.status]).toEqual([cmd, 4]);
      const merchant = await s.cli('settlements', cmd, statementId, '--merchant', OTHER, '--json');
      expect([cmd, merchant.status]).toEqual([cmd, 4]);
    }
    expect((await s.cli('settlements', 'get', OTHER, '--json')).status).toBe(4);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { recordArg } from '../../src/cli/context';
import { ValidationError } from '../../src/domain/errors';
import { statementCsv } from '../../src/services/settlements/csv';
import { settlementFlags } from '../../src/cli/settlements';

interface Downloaded {
  statementId: string;
  filename: string;
  /** where it was written (null: stdout) */
  path: string | null;
  size: number;
  /** the CSV itself, under --json without --output */
  csv?: string;
}

export default class SettlementsDownload extends BaseCommand<typeof SettlementsDownload> {
  static override summary = 'The settlement statement as CSV (RFC 4180, for spreadsheets): to stdout, or to a file with --output.';
  static override description =
    "The same file as GET /v1/settlements/{id}/download, read as the statement's tenant operator: a header row, a record per line, then the opening and closing balances and the totals; amounts as plain decimals in major units with the currency in its own column, instants ISO 8601 UTC, UTF-8 with a byte order mark (Excel reads it right), CRLF records, text a spreadsheet would take for a formula neutralised by a leading apostrophe. Under --json without --output the CSV is in the result (csv).";
  static override examples = [
    '<%= config.bin %> settlements download 0190a1b2-… > statement.csv',
    '<%= config.bin %> settlements download 0190a1b2-… --output statement.csv',
    '<%= config.bin %> settlements download 0190a1b2-… --tenant 6f1c… --output statement.csv --force --json',
  ];
  static override args = { id: recordArg('settlement', { description: 'Settlement statement id', required: true }) };
  static override flags = {
    ...settlementFlags,
    output: Flags.string({
      char: 'o',
      description: 'File to write (an existing file is not overwritten without --force); stdout without it',
    }),
    force: Flags.boolean({ description: 'Overwrite --output if it exists', default: false }),
  };

  async run(): Promise<Downloaded> {
    const out = this.flags.output === undefined ? null : path.resolve(this.flags.output);
    if (out && !this.flags.force && fs.existsSync(out)) {
      throw new ValidationError(`${out} exists.`, [{ path: '--output', message: 'exists' }], 'FILE_EXISTS', {
        hint: 'Choose another --output or pass --force.',
      });
    }
    const file = await statementCsv(await this.scope(), this.args.id);
    const result: Downloaded = { statementId: this.args.id, filename: file.filename, path: out, size: file.bytes.length };
    if (out) {
      fs.writeFileSync(out, file.bytes, { flag: this.flags.force ? 'w' : 'wx' });
      this.log(`Saved ${file.filename} (${file.bytes.length} bytes) to ${out}.`);
    } else if (this.jsonEnabled()) {
      result.csv = file.bytes.toString('utf8');
    } else {
      await new Promise<void>((resolve, reject) => process.stdout.write(file.bytes, (error) => (error ? reject(error) : resolve())));
    }
    return result;
  }
}

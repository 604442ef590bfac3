import fs from 'node:fs';
import path from 'node:path';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../src/cli/base-command';
import { ownedArg, recordOwnerFlags } from '../../../src/cli/context';
import { ValidationError } from '../../../src/domain/errors';
import { downloadDocument } from '../../../src/services/kyb/documents';
import { kybFlags } from '../../../src/cli/kyb';

interface Downloaded {
  submissionId: string;
  documentId: string;
  path: string;
  filename: string;
  contentType: string;
  size: number;
  sha256: string;
}

export default class KybDocumentsDownload extends BaseCommand<typeof KybDocumentsDownload> {
  static override summary = 'Save a KYB document to a file, byte for byte as uploaded (its SHA-256 is checked).';
  static override examples = ['<%= config.bin %> kyb documents download 6f1c… 0d4e… --out certificate.pdf'];
  static override args = {
    submissionId: ownedArg('kybSubmission', { description: 'Submission id', required: true }),
    documentId: ownedArg('kybDocument', { description: 'Document id', required: true }),
  };
  static override flags = {
    tenant: kybFlags.tenant,
    merchant: recordOwnerFlags.merchant,
    out: Flags.string({ description: 'File to write (mode 0600; an existing file is not overwritten without --force)', required: true }),
    force: Flags.boolean({ description: 'Overwrite --out if it exists', default: false }),
  };

  async run(): Promise<Downloaded> {
    const out = path.resolve(this.flags.out);
    if (!this.flags.force && fs.existsSync(out)) {
      throw new ValidationError(`${out} exists.`, [{ path: '--out', message: 'exists' }], 'FILE_EXISTS', {
        hint: 'Choose another --out or pass --force.',
      });
    }
    const file = await downloadDocument(await this.scope(), this.args.submissionId, this.args.documentId);
    fs.writeFileSync(out, file.bytes, { mode: 0o600, flag: this.flags.force ? 'w' : 'wx' });
    const result = {
      submissionId: this.args.submissionId,
      documentId: file.document.id,
      path: out,
      filename: file.filename,
      contentType: file.contentType,
      size: file.bytes.length,
      sha256: file.document.sha256,
    };
    this.log(`Saved ${file.filename} (${file.contentType}, ${file.bytes.length} bytes, sha256 ${file.document.sha256}) to ${out}.`);
    return result;
  }
}

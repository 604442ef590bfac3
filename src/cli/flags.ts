import { Flags } from '@oclif/core';

/** Flags shared by many commands, named the same everywhere. */
export const sharedFlags = {
  tenant: Flags.string({ description: 'Tenant id', required: true }),
  merchant: Flags.string({ description: 'Merchant id' }),
  live: Flags.boolean({ description: 'Act in live mode (default: sandbox/test mode)', default: false }),
  limit: Flags.integer({ description: 'Page size (1-100)', default: 20, min: 1, max: 100 }),
  cursor: Flags.string({ description: 'Cursor from a previous page (nextCursor)' }),
  all: Flags.boolean({
    description:
      'Fetch every page from --cursor (or the first) on, following the cursors: 100 records a request, or --limit when given; a progress bar on a terminal',
    default: false,
  }),
  yes: Flags.boolean({ char: 'y', description: 'Confirm without a prompt', default: false }),
};

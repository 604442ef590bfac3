import type { CallerContext } from '../domain/context';

/**
 * Whether the company has an approved KYB submission (live approval of its merchants needs one).
 * The KYB area implements this over its submissions table.
 */
export async function companyHasApprovedKyb(_ctx: CallerContext, _companyId: string): Promise<boolean> {
  throw new Error('KYB is not built yet');
}

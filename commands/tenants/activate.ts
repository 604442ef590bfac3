import { tenantStatusCommand } from '../../src/cli/tenant-status';

export default tenantStatusCommand('activate');

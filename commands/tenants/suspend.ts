import { tenantStatusCommand } from '../../src/cli/tenants';

export default tenantStatusCommand('suspend');

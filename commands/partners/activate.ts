import { partnerStatusCommand } from '../../src/cli/partners';

export default partnerStatusCommand('activate');

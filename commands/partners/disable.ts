import { partnerStatusCommand } from '../../src/cli/partners-status';

export default partnerStatusCommand('disable');

import { merchantStatusCommand } from '../../src/cli/organization';

export default merchantStatusCommand('disable');

import { merchantStatusCommand } from '../../src/cli/organization-moves';

export default merchantStatusCommand('suspend');

import { merchantLiveCommand } from '../../src/cli/organization-moves';

export default merchantLiveCommand('approve');

import { merchantLiveCommand } from '../../src/cli/organization';

export default merchantLiveCommand('request');

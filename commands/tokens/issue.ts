import { Flags } from '@oclif/core';
import { BaseCommand } from '../../src/cli/base-command';
import { AuthenticationError, NotFoundError } from '../../src/domain/errors';
import { isUuid } from '../../src/db/scoped';
import { parseDuration } from '../../src/services/access/tokens';

export interface IssuedToken {
  token: string;
  userId: string;
  livemode: boolean;
  expiresAt: string;
}

export default class TokensIssue extends BaseCommand<typeof TokensIssue> {
  static override summary = 'Issue an access token (JWT) for a user.';
  static override description =
    "Signed with PAYPLANE_TOKEN_SECRET, or the key generated into .payplane/token-secret. The token acts in the user's layer (merchant, operator or platform) and in one mode, and lives at most PAYPLANE_TOKEN_MAX_LIFETIME_HOURS (24 h by default): a longer --ttl is refused.";
  static override examples = [
    '<%= config.bin %> tokens issue --user 5a1d… --ttl 1h',
    '<%= config.bin %> tokens issue --user 5a1d… --ttl 12h --live --json',
  ];
  static override flags = {
    user: Flags.string({ description: 'User id', required: true }),
    ttl: Flags.string({ description: 'Lifetime such as 30m, 1h, 12h (at most PAYPLANE_TOKEN_MAX_LIFETIME_HOURS)', default: '1h' }),
    live: Flags.boolean({ description: 'Token acts in live mode (default: test mode)', default: false }),
  };

  async run(): Promise<IssuedToken> {
    const ttl = parseDuration(this.flags.ttl, '--ttl');
    const rt = await this.runtime();
    const user = isUuid(this.flags.user) ? await rt.db.models.User.findOne({ where: { id: this.flags.user, deletedAt: null } }) : null;
    if (!user) throw new NotFoundError('user', this.flags.user);
    if (user.get('status') !== 'active')
      throw new AuthenticationError(`The user is ${user.get('status')}; no token is issued.`, 'USER_NOT_ACTIVE');
    const issued = await rt.tokens.issue(this.flags.user, ttl, this.flags.live, '--ttl');
    this.log(issued.token);
    return { token: issued.token, userId: this.flags.user, livemode: this.flags.live, expiresAt: issued.expiresAt.toISOString() };
  }
}

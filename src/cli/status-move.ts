import type { CallerContext } from '../domain/context';
import { BaseCommand } from './base-command';
import { atPlatform, ownedArg, ownerFlags, recordArg, type OwnedKind, type RecordKind } from './context';
import { sharedFlags } from './flags';

import type { AccountMove } from '../services/status';

export interface StatusMoveSpec<R extends { id: string; name: string; status: string }> {
  /** topic of the command, e.g. tenants */
  topic: string;
  /** what is moved, e.g. tenant */
  noun: string;
  /** the kind of record: --tenant (and --merchant where a merchant owns one) check whose it is */
  kind: OwnedKind;
  /** where the command acts: the record's owner (a kind of recordArg), else the platform */
  placedBy: 'record' | 'platform';
  move: AccountMove;
  summary: string;
  /** the record as its get command reads it: the confirmation names it */
  get(ctx: CallerContext, id: string): Promise<R>;
  apply(ctx: CallerContext, id: string): Promise<R>;
}

/**
 * The command class of one status move (activate, suspend, disable) of a record: suspend and disable ask for
 * confirmation (or --yes), the result is the record. --tenant (and --merchant) name whose the record must be.
 */
export function statusMoveCommand<R extends { id: string; name: string; status: string }>(spec: StatusMoveSpec<R>) {
  const { move, noun } = spec;
  return class StatusMoveCommand extends BaseCommand<typeof StatusMoveCommand> {
    static override summary = spec.summary;
    static override examples = [`<%= config.bin %> ${spec.topic} ${move} 6f1c…${move === 'activate' ? '' : ' --yes'}`];
    static override args = {
      id:
        spec.placedBy === 'record'
          ? recordArg(spec.kind as RecordKind, { description: `${noun[0].toUpperCase()}${noun.slice(1)} id`, required: true })
          : ownedArg(spec.kind, { description: `${noun[0].toUpperCase()}${noun.slice(1)} id`, required: true }),
    };
    static override scopeOf = spec.placedBy === 'platform' ? atPlatform() : undefined;
    // activate asks nothing: --yes is still accepted (scripts pass it to every status move) but not offered
    static override flags = { ...ownerFlags(spec.kind), yes: move === 'activate' ? { ...sharedFlags.yes, hidden: true } : sharedFlags.yes };

    async run(): Promise<R> {
      if (move !== 'activate') {
        await this.confirmAction(this.flags.yes, async () => {
          const current = await spec.get(await this.scope(), this.args.id);
          return { verb: `${move[0].toUpperCase()}${move.slice(1)}`, noun, name: current.name, id: current.id };
        });
      }
      const record = await spec.apply(await this.scope(), this.args.id);
      this.log(`${noun[0].toUpperCase()}${noun.slice(1)} ${record.name} (${record.id}) is now ${record.status}.`);
      return record;
    }
  };
}

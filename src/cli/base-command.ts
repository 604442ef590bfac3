import { Command, Errors, Flags, type Interfaces } from '@oclif/core';
import { closeRuntime, openRuntime, type Runtime } from '../runtime';
import { loadConfig, type AppConfig } from '../config';
import { applyConfigFile } from '../settings';
import type { CallerContext } from '../domain/context';
import { CancelledError, PayplaneError, ValidationError } from '../domain/errors';
import { confirmQuestion, INTERRUPTED_EXIT, isPromptInterrupt, type ConfirmSubject } from './prompts';
import type { OwnedArgument, OwnedKind, ScopeOf } from './context';
import { configureColour } from './output';
import { followPages, type PageRequest } from './progress';
import type { Page } from '../db/scoped';
import { inquirer } from './inquirer';
import { shortParseError, type CommandShape } from './hooks/flag-not-found';
import { actorIdsOf, loadActorNames, nameActorsIn } from './actors';

export type CommandFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>;
export type CommandArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>;

/**
 * The one base of every payplane command: --json (the run() result, printed by oclif), --database-url,
 * colour off under NO_COLOR or a pipe, prompts only on a TTY, and domain errors mapped once to a message,
 * a code, a hint and an exit code.
 */
export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true;
  /** the command reports an invalid configuration file itself instead of stopping on it (doctor) */
  static reportsConfigErrors = false;
  /**
   * The command may create the database it is pointed at (serve, sandbox init, the db commands); every other one
   * refuses a missing database as unavailable (exit 8), naming where it looked, instead of creating an empty one.
   */
  static createsDatabase = false;
  /**
   * Where the command acts when none of its arguments or flags says (src/cli/context.ts `atPlatform`): scope() falls
   * back on it. A command that acts nowhere (db, config, serve) declares nothing and never asks.
   */
  static scopeOf: ScopeOf | undefined;

  static override baseFlags = {
    'database-url': Flags.string({
      description: 'Database URL: sqlite:<path> or postgres://… (default: $DATABASE_URL, else sqlite:.payplane/payplane.db)',
      env: 'DATABASE_URL',
      helpGroup: 'GLOBAL',
    }),
  };

  protected flags!: CommandFlags<T>;
  protected args!: CommandArgs<T>;
  /** the level of the library logs when PAYPLANE_LOG_LEVEL is not set: admin commands print their own results */
  protected defaultLogLevel = 'silent';
  private openedRuntime: Runtime | undefined;

  public override async init(): Promise<void> {
    await super.init();
    configureColour();
    // payplane.config.json (or PAYPLANE_CONFIG) under the environment and the flags: read before the flags are parsed
    try {
      applyConfigFile(process.env);
    } catch (error) {
      // doctor reports a bad file as a failed check; every other command stops on it
      if (!(this.ctor as typeof BaseCommand).reportsConfigErrors) throw error;
    }
    const { args, flags } = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      args: this.ctor.args,
      strict: this.ctor.strict,
    });
    this.flags = flags as CommandFlags<T>;
    this.args = args as CommandArgs<T>;
  }

  protected async config$(overrides: Partial<AppConfig> = {}): Promise<AppConfig> {
    return loadConfig(process.env, { databaseUrl: this.flags['database-url'], ...overrides });
  }

  /** Opens the database (applying pending migrations) once per command; closed when the command ends. */
  protected async runtime(options: { migrate?: boolean; create?: boolean; requireSchema?: boolean } = {}): Promise<Runtime> {
    if (!this.openedRuntime) {
      // one logger for every command, serve's included: credential fields redacted, into PAYPLANE_LOG_FILE when set
      // (under --json stdout carries the command's result alone: no log lines unless PAYPLANE_LOG_LEVEL asks)
      const config = await this.config$();
      const level = process.env.PAYPLANE_LOG_LEVEL ? config.logLevel : this.jsonEnabled() ? 'silent' : this.defaultLogLevel;
      this.openedRuntime = await openRuntime(config, {
        migrate: options.migrate,
        logLevel: level,
        create: (this.ctor as typeof BaseCommand).createsDatabase && options.create !== false,
        requireSchema: options.requireSchema,
      });
      await this.checkOwners(this.openedRuntime);
    }
    return this.openedRuntime!;
  }

  /**
   * --tenant and --merchant of a command about records named by id (the arguments of src/cli/context.ts ownedArg and
   * recordArg): each record must be theirs, else it is not found (exit 4), whatever else the flags mean there. Checked
   * once, as the command opens the database, before it reads or changes anything.
   */
  private async checkOwners(rt: Runtime): Promise<void> {
    const flags = this.flags as { tenant?: unknown; merchant?: unknown };
    if (typeof flags.tenant !== 'string' && typeof flags.merchant !== 'string') return;
    const args = this.args as Record<string, unknown>;
    const owned = Object.entries(this.ctor.args ?? {})
      .map(([name, definition]) => ({ kind: (definition as Partial<OwnedArgument>).owner, id: args[name] }))
      .filter((a): a is { kind: OwnedKind; id: string } => a.kind !== undefined && typeof a.id === 'string');
    if (!owned.length) return;
    // loaded on use: most commands never name a record and its owner
    const { assertOwner } = require('./context') as typeof import('./context');
    for (const { kind, id } of owned) await assertOwner(rt, kind, id, flags);
  }

  /**
   * The context the command acts in, the one way every command finds it, from what the command declares
   * (src/cli/context.ts): the record an id argument names (recordArg: its owner decides), else a scope flag such as
   * --tenant (with its fellow flags), else the command's own `scopeOf` (the platform). `livemode` is the mode of a
   * record already found (else --live, else sandbox).
   */
  protected async scope(options: { livemode?: boolean } = {}): Promise<CallerContext> {
    const rt = await this.runtime();
    const flags = this.flags as Record<string, unknown>;
    const args = this.args as Record<string, unknown>;
    const scoped = (definitions: object | undefined, values: Record<string, unknown>) =>
      Object.entries(definitions ?? {})
        .filter(([, definition]) => typeof (definition as { scope?: unknown }).scope === 'function')
        .map(([name, definition]) => ({ scope: (definition as { scope: ScopeOf }).scope, value: values[name] as string | undefined }));
    const declared = (this.ctor as typeof BaseCommand).scopeOf;
    const [first] = [
      ...scoped(this.ctor.args, args).filter((a) => a.value !== undefined),
      ...scoped(this.ctor.flags, flags),
      ...(declared ? [{ scope: declared, value: undefined }] : []),
    ];
    if (!first) throw new Error(`${this.id}: no argument or flag says where the command acts`);
    return first.scope(rt, first.value, flags, options.livemode);
  }

  protected override async finally(error: Error | undefined): Promise<void> {
    if (this.openedRuntime) {
      await closeRuntime(this.openedRuntime).catch(() => undefined);
      this.openedRuntime = undefined;
    }
    await super.finally(error);
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    // the operator's own answers at a prompt (prompts run on a terminal only, never under --json): one plain line on
    // stderr, no "Error:" and no stack. "No" is exit 9; Ctrl-C at any prompt (confirm, input, select, password) is 130.
    if (!this.jsonEnabled() && (error instanceof CancelledError || isPromptInterrupt(error))) {
      const interrupted = isPromptInterrupt(error);
      this.logToStderr(interrupted ? 'Interrupted.' : (error as CancelledError).detail);
      return this.exit(interrupted ? INTERRUPTED_EXIT : (error as CancelledError).exitCode);
    }
    if (isPromptInterrupt(error)) {
      return super.catch(
        Object.assign(new Errors.CLIError('Interrupted.', { code: 'INTERRUPTED', exit: INTERRUPTED_EXIT }), { exitCode: INTERRUPTED_EXIT }),
      );
    }
    if (error instanceof PayplaneError) {
      // an actor the message names by id is shown with its name: "being executed by alice (0190…)"
      const detail = this.openedRuntime ? await nameActorsIn(this.openedRuntime, error.detail).catch(() => error.detail) : error.detail;
      const cliError = new Errors.CLIError(detail, {
        code: error.code,
        exit: error.exitCode,
        suggestions: error.hint ? [error.hint] : undefined,
      });
      Object.assign(cliError, { status: error.status, errors: error.errors, exitCode: error.exitCode });
      return super.catch(cliError);
    }
    // a mistyped flag, an unexpected or missing argument: the nearest flag and one usage line, not the whole help
    const short = shortParseError(error, this.config.bin, this.ctor as unknown as CommandShape);
    if (short) return super.catch(short);
    // oclif's own errors keep their exit code under --json too
    const oclifExit = (error as { oclif?: { exit?: number } }).oclif?.exit;
    if (error.exitCode === undefined && oclifExit !== undefined) error.exitCode = oclifExit;
    return super.catch(error);
  }

  protected override toErrorJson(error: unknown): unknown {
    const e = error as {
      code?: string;
      message?: string;
      status?: number;
      errors?: unknown;
      suggestions?: string[];
      flagSuggestions?: string[];
      oclif?: { exit?: number };
    };
    return {
      error: {
        code: e.code ?? 'ERROR',
        message: e.message,
        ...(e.status ? { status: e.status } : {}),
        ...(e.errors ? { errors: e.errors } : {}),
        // the flags nearest a mistyped one (src/cli/hooks/flag-not-found.ts), as a mistyped command's suggestions
        ...(e.flagSuggestions ? { suggestions: e.flagSuggestions } : {}),
        ...(e.suggestions?.length ? { hint: e.suggestions[0] } : {}),
        exitCode: e.oclif?.exit ?? 1,
      },
    };
  }

  /**
   * A value from its flag, else asked on a TTY (an answer for a scope flag such as --tenant is kept as its
   * value: it then places the command, scope()), else a clear error naming the flag.
   */
  protected async required(value: string | undefined, flag: string, question: string): Promise<string> {
    if (value !== undefined && value !== '') return value;
    if (process.stdin.isTTY && process.stdout.isTTY && !this.jsonEnabled()) {
      const { input } = await inquirer();
      const answer = await input({ message: question, required: true });
      const definition = (this.ctor.flags as Record<string, { scope?: unknown }> | undefined)?.[flag];
      if (typeof definition?.scope === 'function') (this.flags as Record<string, unknown>)[flag] = answer;
      return answer;
    }
    throw new ValidationError(`Missing --${flag}.`, [{ path: `--${flag}`, message: 'is required' }], 'MISSING_FLAG', {
      hint: `Pass --${flag} <value>.`,
    });
  }

  /**
   * A list command's records: one page (--limit, --cursor), or with --all every page from --cursor on as one page,
   * with a progress bar on stderr when it is a terminal and --json is off (src/cli/progress.ts followPages).
   */
  protected async listAll<R>(load: (page: PageRequest) => Promise<Page<R>>): Promise<Page<R>> {
    const flags = this.flags as { all?: boolean; limit?: number; cursor?: string };
    return followPages(load, {
      all: flags.all === true,
      limit: flags.limit ?? 20,
      limitGiven: this.argv.some((arg) => arg === '--limit' || arg.startsWith('--limit=')),
      cursor: flags.cursor,
      label: (this.id ?? 'list').split(':').join(' '),
      progress: !this.jsonEnabled(),
    });
  }

  /**
   * Loads the names of the actors in these records' *By fields (createdBy, approvedBy, …), so that rendering them
   * shows `alice (0190…)` rather than the id alone (src/cli/actors.ts actorLabel).
   */
  protected async nameActors(...records: unknown[]): Promise<void> {
    // under --json the records are printed as they are: ids
    if (this.jsonEnabled()) return;
    await loadActorNames(await this.runtime(), actorIdsOf(records.flat()));
  }

  /** For long-running commands (serve, dispatch, listen): the first of SIGINT and SIGTERM, by name. */
  protected untilStopped(): Promise<string> {
    return new Promise<string>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
  }

  /**
   * Asks on a terminal, unless --yes, whether to do what `subject` says to the record it names, in the one wording of
   * src/cli/prompts.ts: `Delete role "Support agents" (3f2a…)? …`. "No" ends the command with CancelledError (exit 9,
   * nothing changed); in a script without --yes it is refused (exit 2, CONFIRMATION_REQUIRED). Given a function, the
   * record is loaded (through the command's own get) only when the question is asked.
   */
  protected async confirmAction(yes: boolean | undefined, subject: ConfirmSubject | (() => Promise<ConfirmSubject>)): Promise<void> {
    if (yes) return;
    if (process.stdin.isTTY && process.stdout.isTTY && !this.jsonEnabled()) {
      const question = confirmQuestion(typeof subject === 'function' ? await subject() : subject);
      const { confirm } = await inquirer();
      if (await confirm({ message: question, default: false })) return;
      throw new CancelledError();
    }
    throw new ValidationError(
      'This action needs confirmation.',
      [{ path: '--yes', message: 'is required when not on a terminal' }],
      'CONFIRMATION_REQUIRED',
      {
        hint: 'Pass --yes to confirm.',
      },
    );
  }
}

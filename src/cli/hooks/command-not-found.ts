import { Errors, type Hook } from '@oclif/core';
import { distance } from 'fastest-levenshtein';

/**
 * oclif's command_not_found hook: a mistyped command (`payplane tenant list`) is answered with the commands it is
 * closest to ("did you mean `tenants list`"), as a usage error (exit 2); under --json as the same error object every
 * command prints, on stdout.
 */
const commandNotFound: Hook<'command_not_found'> = async function (options) {
  const typed = options.id.split(':').join(' ');
  const names = [...new Set([...options.config.commandIDs, ...options.config.topics.map((t) => t.name)])]
    .filter((id) => !options.config.findCommand(id)?.hidden)
    .map((id) => id.split(':').join(' '));
  const suggestions = closest(typed, names);
  const bin = options.config.bin;
  const message = `"${bin} ${typed}" is not a command.${suggestions.length ? ` Did you mean \`${bin} ${suggestions[0]}\`?` : ''}`;
  const hint =
    suggestions.length > 1
      ? `Also close: ${suggestions
          .slice(1)
          .map((s) => `\`${bin} ${s}\``)
          .join(', ')}. \`${bin} help\` lists every command.`
      : `\`${bin} help\` lists every command.`;
  if (options.argv?.includes('--json')) {
    process.stdout.write(
      `${JSON.stringify({ error: { code: 'COMMAND_NOT_FOUND', message, suggestions: suggestions.map((s) => `${bin} ${s}`), hint, exitCode: 2 } }, null, 2)}\n`,
    );
    throw new Errors.ExitError(2);
  }
  throw new Errors.CLIError(message, { exit: 2, code: 'COMMAND_NOT_FOUND', suggestions: [hint] });
};

/**
 * The names closest to what was typed, best first: by edit distance over the whole name (`tenant list` to
 * `tenants list`), else over its first words (`tenant lst` to `tenants list` through `tenant` to `tenants`), within
 * a third of the typed length (at least 2 edits).
 */
export function closest(typed: string, names: string[], max = 3): string[] {
  const bound = Math.max(2, Math.floor(typed.length / 3));
  const words = typed.split(' ');
  const scored = names
    .map((name) => {
      const whole = distance(typed, name);
      const nameWords = name.split(' ');
      // word by word: the sum over the typed words of their distance to the name's word at that place
      const byWord = nameWords.length === words.length ? words.reduce((sum, w, i) => sum + distance(w, nameWords[i]), 0) : Infinity;
      return { name, score: Math.min(whole, byWord) };
    })
    .filter((s) => s.score <= bound)
    .sort((a, b) => a.score - b.score || a.name.length - b.name.length || a.name.localeCompare(b.name));
  return scored.slice(0, max).map((s) => s.name);
}

export default commandNotFound;

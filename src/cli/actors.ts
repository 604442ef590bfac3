/**
 * Who did something, as the CLI names it: records hold the id of the user or API key that acted
 * (createdBy, approvedBy, executedBy, …), and the CLI shows the name with the id, `alice (0190…)`,
 * `key "Checkout backend" (0190…)`, wherever it names an actor: records' *By fields, table columns, messages. The
 * names are loaded once per command (BaseCommand.nameActors, before rendering; BaseCommand.catch for an error's
 * message) and read here synchronously by the renderers.
 */

/** What the names are read from: the runtime's models (typed by shape: src/runtime.ts imports the CLI's output). */
interface ActorSources {
  db: { models: { User: RowFinder; ApiKey: RowFinder } };
}
interface RowFinder {
  findAll(options: { where: { id: string[] }; attributes: string[] }): Promise<{ get(options: { plain: true }): unknown }[]>;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const WHOLE_UUID = new RegExp(`^${UUID.source}$`, 'i');

/** The names of the actors loaded so far in this process, by id. */
const names = new Map<string, string>();

/** An actor as the CLI shows it: its name and its id, or the id alone when it is not known (or not an actor). */
export function actorLabel(id: string | null | undefined): string {
  if (!id) return '';
  const name = names.get(id);
  return name ? `${name} (${id})` : id;
}

/** The ids held in the *By fields of records (createdBy, approvedBy, updatedBy, …), one level deep. */
export function actorIdsOf(records: unknown[]): string[] {
  const ids = new Set<string>();
  for (const record of records) {
    if (!record || typeof record !== 'object') continue;
    for (const [key, value] of Object.entries(record)) {
      if (/By$/.test(key) && typeof value === 'string' && WHOLE_UUID.test(value)) ids.add(value);
    }
  }
  return [...ids];
}

/** Loads the names of these ids' users (display name, else email) and API keys (key "name"); others stay ids. */
export async function loadActorNames(rt: ActorSources, ids: string[]): Promise<void> {
  const wanted = [...new Set(ids)].filter((id) => !names.has(id));
  if (!wanted.length) return;
  const users = await rt.db.models.User.findAll({ where: { id: wanted }, attributes: ['id', 'displayName', 'email'] });
  for (const user of users) {
    const row = user.get({ plain: true }) as { id: string; displayName: string | null; email: string };
    names.set(row.id, row.displayName || row.email);
  }
  const keys = await rt.db.models.ApiKey.findAll({ where: { id: wanted.filter((id) => !names.has(id)) }, attributes: ['id', 'name'] });
  for (const key of keys) {
    const row = key.get({ plain: true }) as { id: string; name: string };
    names.set(row.id, `key "${row.name}"`);
  }
}

/** A message with each actor's id it names shown with the actor's name: "executed by alice (0190…)". */
export async function nameActorsIn(rt: ActorSources, text: string): Promise<string> {
  const ids = text.match(UUID) ?? [];
  if (!ids.length) return text;
  await loadActorNames(rt, ids);
  return text.replace(UUID, (id) => (names.has(id) ? actorLabel(id) : id));
}

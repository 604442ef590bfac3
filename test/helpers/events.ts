import type { WhereOptions } from 'sequelize';
import type { EventRow } from '../../src/db/models';
import type { Runtime } from '../../src/runtime';

type EventData = Record<string, unknown>;

/** Whether an event's data is about one of the records `ids`: the record itself, or naming it as its payment. */
export const about =
  (...ids: string[]) =>
  (data: EventData): boolean =>
    ids.includes(data.id as string) || ids.includes(data.paymentId as string);

/**
 * The events of the outbox table as stored (`where` on its columns, `match` on their data), oldest first: what was
 * raised, whether or not anything received it.
 */
export async function storedEvents(
  rt: Runtime,
  where: WhereOptions<EventRow> = {},
  match: (data: EventData) => boolean = () => true,
): Promise<EventRow[]> {
  const rows = await rt.db.models.Event.findAll({
    where,
    order: [
      ['createdAt', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  return rows.map((r) => r.get({ plain: true }) as EventRow).filter((e) => match(e.data));
}

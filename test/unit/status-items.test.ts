import { ConflictError } from '../../src/domain/errors';
import { itemMachine, moveWithin } from '../../src/services/status';

// The machine of a status held inside a record (an MPI account's `enabled` in its terminal's 3DS configuration).

interface Item {
  brand: string;
  enabled: boolean;
}

const MACHINE = itemMachine({
  field: 'enabled',
  moves: {
    enable: { from: [false], to: true, action: 'terminal.mpi_account_updated' },
    disable: { from: [true], to: false, action: 'terminal.mpi_account_updated' },
  },
  refused: (item: Item, move) => new ConflictError('INVALID_STATE_TRANSITION', `The ${item.brand} item cannot be ${move}d.`),
});

test('a move gives the item with its new status and leaves the item it was given as it was', () => {
  const item: Item = { brand: 'visa', enabled: true };
  expect(moveWithin(MACHINE, item, 'disable')).toEqual({ brand: 'visa', enabled: false });
  expect(item).toEqual({ brand: 'visa', enabled: true });
  expect(moveWithin(MACHINE, { brand: 'visa', enabled: false }, 'enable')).toEqual({ brand: 'visa', enabled: true });
});

test("a move from a status it does not start from is refused with the machine's error", () => {
  expect(() => moveWithin(MACHINE, { brand: 'visa', enabled: true }, 'enable')).toThrow('The visa item cannot be enabled.');
  expect(() => moveWithin(MACHINE, { brand: 'visa', enabled: false }, 'disable')).toThrow(ConflictError);
});

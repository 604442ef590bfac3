import path from 'node:path';
import madge from 'madge';

// Issue 21: no import cycles between modules, type-only imports included (a cycle through types still ties two
// areas' files together). madge reads the import graph of src/ and commands/ as TypeScript resolves it.
describe('import graph', () => {
  test('src and commands have no circular imports', async () => {
    const root = path.resolve(__dirname, '../..');
    const graph = await madge([path.join(root, 'src'), path.join(root, 'commands')], {
      fileExtensions: ['ts'],
      tsConfig: path.join(root, 'tsconfig.json'),
      detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
    });
    expect(Object.keys(graph.obj()).length).toBeGreaterThan(300);
    expect(graph.circular().map((cycle) => cycle.join(' > '))).toEqual([]);
  });
});

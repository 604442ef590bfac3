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
    // the domain (caller context and authority, levels, permissions, errors, money, clock) is used by every layer and
    // depends on none of the logic built on it
    const domainOnServices = Object.entries(graph.obj())
      .filter(([file]) => file.startsWith('src/domain/'))
      .flatMap(([file, imports]) => imports.filter((i) => i.startsWith('src/services/')).map((i) => `${file} > ${i}`));
    expect(domainOnServices).toEqual([]);
  });
});

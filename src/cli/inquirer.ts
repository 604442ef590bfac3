/**
 * @inquirer/prompts, loaded when a command asks something. Its own module: the one `import()` of the prompts (an ES
 * module) keeps the modules that use it in the compile cache (src/cli/compile-cache.ts caches no module with import()).
 */
export function inquirer(): Promise<typeof import('@inquirer/prompts')> {
  return import('@inquirer/prompts');
}

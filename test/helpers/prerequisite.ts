/**
 * A test that needs something outside the project (the pinned contract beside it, a browser, a system tool) skips
 * itself where that is missing on a developer's machine, and says so. Under CI (CI=true) nothing may pass without
 * checking: a missing prerequisite fails the run instead.
 */
export const underCi = /^(1|true|yes)$/i.test(process.env.CI ?? '');

/** `describe` when nothing is missing; else `describe.skip` with a warning, or under CI a suite that fails naming it. */
export function describeWhenPresent(what: string, missing: string | null): jest.Describe {
  if (!missing) return describe;
  if (underCi) {
    return ((name: string) =>
      describe(name, () => {
        test(`the prerequisite of ${what} is present (CI=true: a missing one fails, it is not skipped)`, () => {
          throw new Error(`${what}: ${missing}`);
        });
      })) as unknown as jest.Describe;
  }
  console.warn(`${what} skipped: ${missing}`);
  return describe.skip;
}

/** `test` when nothing is missing; else `test.skip`, or under CI a test that fails naming what is missing. */
export function testWhenPresent(what: string, missing: string | null): jest.It {
  if (!missing) return test;
  if (underCi) {
    return ((name: string) =>
      test(name, () => {
        throw new Error(`${what}: ${missing}`);
      })) as unknown as jest.It;
  }
  return test.skip;
}

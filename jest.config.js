/** @type {import('jest').Config} */
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }];

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.[tj]s$': swc },
  // ESM-only packages are transpiled to CommonJS for jest's loader.
  transformIgnorePatterns: ['/node_modules/(?!(jose|uuid|chalk|@inquirer|inquirer|wsl-utils|is-wsl|is-inside-container|is-docker)/)'],
  setupFiles: ['<rootDir>/test/setup-env.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/setup-after-env.ts'],
  testTimeout: 60_000,
  maxWorkers: process.env.CI ? 2 : '50%',
};

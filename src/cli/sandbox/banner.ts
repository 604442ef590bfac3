import { chalk } from '../output';
import type { SandboxCredentials } from '../../services/sandbox/provision';

/** what `payplane serve` shows of a sandbox it provisioned or found */
export interface BannerInput {
  url: string;
  sandbox: SandboxCredentials;
  /** where the sandbox's keys are saved (0600) */
  file: string;
  /** whether stdout is a terminal: only then are the secret keys shown in full */
  tty: boolean;
}

/** the first characters of a secret, enough to tell keys apart, never enough to use one */
function masked(secret: string): string {
  return `${secret.slice(0, 16)}…`;
}

/**
 * The sandbox part of serve's banner. On a terminal it shows the keys and a curl line to paste; otherwise (a pipe,
 * a service manager, a log collector: stdout also carries the JSON logs) the keys are masked and the file named.
 */
export function sandboxBanner({ url, sandbox, file, tty }: BannerInput): string[] {
  const key = (secret: string) => (tty ? secret : `${masked(secret)} (full key in the file)`);
  const lines = [
    `\n${chalk.bold('Sandbox')} (saved in ${file})`,
    `  tenant id       ${sandbox.tenantId}`,
    `  merchant id     ${sandbox.merchantId}`,
    `  tenant key      ${key(sandbox.tenantKey.secretKey)}`,
    `  merchant key    ${key(sandbox.merchantKey.secretKey)}`,
    `  platform token  ${sandbox.platformToken.slice(0, tty ? 24 : 8)}… (see the file)`,
  ];
  if (tty) lines.push(`\nTry it:\n  curl -s ${url}/v1/api-keys -H "Authorization: Bearer ${sandbox.tenantKey.secretKey}"`);
  else {
    // the file keeps one sandbox per database (this one at the top, or under otherDatabases): found by its tenant id
    const read = `const f = require(${JSON.stringify(file)}); [f, ...(f.otherDatabases || [])].find((s) => s.tenantId === ${JSON.stringify(sandbox.tenantId)}).tenantKey.secretKey`;
    lines.push(`\nTry it:\n  curl -s ${url}/v1/api-keys -H "Authorization: Bearer $(node -p '${read}')"`);
  }
  return lines;
}

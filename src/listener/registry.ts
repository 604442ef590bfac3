import fs from 'node:fs';
import path from 'node:path';
import { writePrivateFile } from '../util/paths';

/**
 * Where `payplane webhooks listen` keeps its identity and says it is running, under a home folder:
 * webhook-listener/identity.pem (its key and certificate, 0600) and webhook-listener/running/<endpointId>.json (one
 * file a running listener: its endpoint, port, process and the certificate it presents). The dispatcher reaches a
 * loopback URL only for the endpoint a running listener registered, on its port, pinning that certificate.
 */
export function listenerDir(home: string): string {
  return path.join(home, 'webhook-listener');
}

export function identityFile(home: string): string {
  return path.join(listenerDir(home), 'identity.pem');
}

function runningFile(home: string, endpointId: string): string {
  return path.join(listenerDir(home), 'running', `${endpointId.replace(/[^0-9a-zA-Z-]/g, '')}.json`);
}

export interface RunningListener {
  endpointId: string;
  port: number;
  pid: number;
  /** the PEM certificate the listener presents */
  cert: string;
}

export function announceListener(home: string, listener: RunningListener): void {
  writePrivateFile(runningFile(home, listener.endpointId), JSON.stringify(listener));
}

export function withdrawListener(home: string, endpointId: string): void {
  fs.rmSync(runningFile(home, endpointId), { force: true });
}

/** The running listener of an endpoint: its file exists and names a live process; else undefined. */
export function runningListener(home: string, endpointId: string): RunningListener | undefined {
  let parsed: RunningListener;
  try {
    parsed = JSON.parse(fs.readFileSync(runningFile(home, endpointId), 'utf8')) as RunningListener;
  } catch {
    return undefined;
  }
  if (
    parsed.endpointId !== endpointId ||
    !Number.isInteger(parsed.port) ||
    !Number.isInteger(parsed.pid) ||
    typeof parsed.cert !== 'string'
  )
    return undefined;
  try {
    process.kill(parsed.pid, 0);
  } catch (error) {
    // EPERM: alive, another user's; ESRCH: gone (a listener killed without its Ctrl-C)
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return parsed;
}

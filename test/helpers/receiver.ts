import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

export interface Tls {
  key: string;
  cert: string;
  /** the certificate file, for PAYPLANE_WEBHOOK_CA_FILE */
  caFile: string;
}

let tls: Tls | undefined;
/** A self-signed certificate for localhost and 127.0.0.1, made once per test process. */
export function testTls(): Tls {
  if (tls) return tls;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payplane-tls-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  tls = { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8'), caFile: certFile };
  return tls;
}

export interface Received {
  headers: Record<string, string>;
  raw: string;
  body: { events: Array<{ id: string; type: string; createdAt: string; livemode: boolean; data: any; attempt: number; version: string }> };
  at: number;
}

export interface Reply {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
  body?: string;
}

/** An HTTPS webhook receiver on 127.0.0.1 that records every request and answers as told. */
export class Receiver {
  readonly received: Received[] = [];
  reply: (req: Received) => Reply = () => ({ status: 200, body: 'ok' });
  private server: https.Server | undefined;
  port = 0;

  async start(): Promise<this> {
    const { key, cert } = testTls();
    this.server = https.createServer({ key, cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const entry: Received = { headers: req.headers as Record<string, string>, raw, body: JSON.parse(raw || '{}'), at: Date.now() };
        this.received.push(entry);
        const reply = this.reply(entry);
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(reply.status, reply.headers);
          res.end(reply.body ?? '');
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
        else send();
      });
    });
    // idle connections kept for a minute, as web servers commonly do (nginx: 75 s), so dispatchers reuse them
    // (Node's client keeps none to a server announcing `Keep-Alive: timeout=1`: every delivery would be a TLS handshake)
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** https://localhost:<port><path>: a name, so the dispatcher's connect-time address check runs. */
  url(pathname = '/hook'): string {
    return `https://localhost:${this.port}${pathname}`;
  }

  types(): string[] {
    return this.received.map((r) => r.body.events[0].type);
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server!.close(resolve));
  }
}

import fs from 'node:fs';
import https from 'node:https';
import { serveChild } from './child-server';

/**
 * Case (f) of the HTTP benchmark (bench/http-bench.ts): the merchant's webhook receiver, an HTTPS server on 127.0.0.1
 * (self-signed certificate; argv: key file, cert file) run in a child process. It verifies nothing expensive (no
 * signature): it parses the body for the event's attempt number, counts deliveries, and counts a delivery whose
 * webhook-id and attempt it has already received as a duplicate. Answers 200 at once.
 *
 * IPC: sends `{ port }` once listening; answers `'stats'` with a ReceiverStats.
 */
export interface ReceiverStats {
  /** requests received */
  received: number;
  /** distinct webhook-id + attempt */
  distinct: number;
  /** requests whose webhook-id + attempt was received before */
  duplicates: number;
  /** requests without a webhook-id header or an attempt in the body */
  malformed: number;
  /** Date.now() of the first and the last request (0 when none) */
  firstAt: number;
  lastAt: number;
}

const [keyFile, certFile] = process.argv.slice(2);
const seen = new Set<string>();
const stats: ReceiverStats = { received: 0, distinct: 0, duplicates: 0, malformed: 0, firstAt: 0, lastAt: 0 };

const server = https.createServer({ key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile) }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const now = Date.now();
    if (!stats.firstAt) stats.firstAt = now;
    stats.lastAt = now;
    stats.received++;
    const id = req.headers['webhook-id'];
    let attempt: unknown;
    try {
      attempt = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events?: Array<{ attempt?: unknown }> }).events?.[0]?.attempt;
    } catch {
      attempt = undefined;
    }
    if (typeof id !== 'string' || typeof attempt !== 'number') stats.malformed++;
    else {
      const key = `${id}#${attempt}`;
      if (seen.has(key)) stats.duplicates++;
      else {
        seen.add(key);
        stats.distinct++;
      }
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
});

serveChild(server);

process.on('message', (message) => {
  if (message === 'stats') process.send?.({ stats });
});

import http from 'node:http';
import express from 'express';
import { serveChild } from './child-server';

/**
 * Case (a) of the HTTP benchmark (bench/http-bench.ts): a bare Express hello-world with the http.createServer settings
 * of src/http/server.ts, run as a child process like `serve` is: the physical limit of this stack on this machine.
 * Listens on 127.0.0.1 at the port given as argument (0: any free one) and sends `{ port }` to the parent over IPC.
 */
const app = express();
app.disable('x-powered-by');
app.get('/hello', (_req, res) => {
  res.json({ hello: 'world' });
});

const server = http.createServer(app);
// as src/http/server.ts
server.keepAliveTimeout = 5_000;
server.headersTimeout = 10_000;
server.requestTimeout = 30_000;
serveChild(server, Number(process.argv[2] ?? 0));

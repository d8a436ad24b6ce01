#!/usr/bin/env node
// Starvation bench of `ecocompute serve` (loopback only, bounded in time): slow-header sockets that
// send one header line every 2 s, then keep-alive connections that each send requests back to back,
// while a prober asks /healthz on a fresh connection every 250 ms. Reports how long each keep-alive
// connection waited for its first response, the /healthz latencies, and when the server cut the
// slow sockets off. Nothing is asserted; bench/RESULTS.md records the figures.
//
//   node bench/server/starvation.mjs [binary] [--connections 64] [--slow 8] [--seconds 20] [--threads 8]
import { RawConnection, exchangeOnce, quantile, sleep } from './raw_http.mjs';
import { startServer } from './start_server.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const binary = argv[0] && !argv[0].startsWith('--') ? argv[0] : 'build/bin/ecocompute';
const connections = option('connections', 64);
const slowCount = option('slow', 8);
const seconds = option('seconds', 20);
const threads = option('threads', 8);

const server = await startServer(binary, ['--threads', String(threads)]);
const started = Date.now();
const until = started + seconds * 1000;
const elapsed = () => (Date.now() - started) / 1000;

// Slow-header sockets: a request line, then one header line every 2 s, never the blank line.
const slowLifetimes = [];
const slow = Array.from({ length: slowCount }, async (_, i) => {
  const c = new RawConnection(server.port);
  await c.connect();
  const opened = Date.now();
  c.write('GET /healthz HTTP/1.1\r\nHost: bench\r\n');
  let line = 0;
  while (Date.now() < until && !(await c.waitClosed(2000))) c.write(`X-Slow-${i}-${line++}: still coming\r\n`);
  slowLifetimes.push(c.closed ? (Date.now() - opened) / 1000 : Infinity);
  c.close();
});
await sleep(200);

// /healthz on a fresh connection every 250 ms, for the whole run.
const health = [];
const healthFailures = [];
const prober = (async () => {
  while (Date.now() < until) {
    const r = await exchangeOnce(server.port, 'GET /healthz HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n', 15000);
    if (r.status === 200) health.push(r.ms); else healthFailures.push(r.status || r.error || 'timeout');
    await sleep(250);
  }
})();

// Keep-alive clients, all opened at once; each sends its next request as soon as the last is answered.
const request = 'GET /v1/estimate?params_b=7&arch=ada&precision=NF4 HTTP/1.1\r\nHost: bench\r\n\r\n';
const firstResponse = [];
const all = [];
const clientFailures = [];
const clients = Array.from({ length: connections }, async () => {
  const c = new RawConnection(server.port);
  const start = process.hrtime.bigint();
  try {
    await c.connect();
  } catch (err) {
    clientFailures.push(err.code ?? String(err));
    return;
  }
  let first = true;
  while (Date.now() < until) {
    const r = await c.exchange(request, 15000);
    if (r.status !== 200) {
      clientFailures.push(r.status || (r.timedOut ? 'timeout' : 'closed'));
      break;
    }
    if (first) firstResponse.push(Number(process.hrtime.bigint() - start) / 1e6);
    first = false;
    all.push(r.ms);
  }
  c.close();
});

await Promise.all([...clients, prober, ...slow]);
const rss = server.rssKiB();
const stopped = await server.stop();

const ms = (v) => (Number.isFinite(v) ? `${v.toFixed(2)} ms` : 'n/a');
console.log(`# ${new Date().toISOString()} starvation bench: ${connections} keep-alive connections + ${slowCount} ` +
            `slow-header sockets (a line every 2 s), ${seconds} s, server --threads ${threads}, ${binary}`);
console.log(`first response: ${firstResponse.length}/${connections} connections answered; ` +
            `p50 ${ms(quantile(firstResponse, 0.5))}, p99 ${ms(quantile(firstResponse, 0.99))}, max ${ms(quantile(firstResponse, 1))}`);
console.log(`all keep-alive requests: ${all.length} in ${seconds} s (${(all.length / seconds).toFixed(0)}/s); ` +
            `p50 ${ms(quantile(all, 0.5))}, p99 ${ms(quantile(all, 0.99))}, max ${ms(quantile(all, 1))}`);
console.log(`/healthz (new connection every 250 ms): ${health.length} answered, ${healthFailures.length} not ` +
            `(${healthFailures.slice(0, 5).join(', ')}); p50 ${ms(quantile(health, 0.5))}, p99 ${ms(quantile(health, 0.99))}, ` +
            `max ${ms(quantile(health, 1))}`);
const cut = slowLifetimes.filter(Number.isFinite);
console.log(`slow-header sockets: ${cut.length}/${slowCount} cut off by the server, after ` +
            `${cut.length ? `${Math.min(...cut).toFixed(1)}–${Math.max(...cut).toFixed(1)} s` : 'never'}; ` +
            `${slowCount - cut.length} still open at the end`);
console.log(`client failures: ${clientFailures.length} (${[...new Set(clientFailures)].join(', ')}); ` +
            `server RSS at the end ${(rss / 1024).toFixed(1)} MiB; exit ${JSON.stringify(stopped)}; ${elapsed().toFixed(1)} s`);

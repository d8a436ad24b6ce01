#!/usr/bin/env node
// Hostile-mix bench of `ecocompute serve` (loopback only, bounded in time): 8 clients each keep one
// worst-case /v1/optimize request in flight (the largest grid the caps allow, 512 configurations), one
// client asks /v1/estimate back to back, and a prober asks /healthz on a fresh connection every 100 ms.
// Reports the /healthz and estimate latencies (p50, p99, max), how the optimize requests were answered
// (200, 503 busy, 400 budget) and their latency. Nothing is asserted; bench/RESULTS.md records the figures.
//
//   node bench/server/hostile_mix.mjs [binary] [--seconds 30] [--heavy 8] [--threads 8]
import { RawConnection, exchangeOnce, quantile, sleep } from './raw_http.mjs';
import { startServer } from './start_server.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const binary = argv[0] && !argv[0].startsWith('--') ? argv[0] : 'build/bin/ecocompute';
const seconds = option('seconds', 30);
const heavyCount = option('heavy', 8);
const threads = option('threads', 8);

const server = await startServer(binary, ['--threads', String(threads)]);
const started = Date.now();
const until = started + seconds * 1000;

const batches = Array.from({ length: 32 }, (_, i) => i + 1);
const precisions = ['FP16', 'Q8_0', 'Q6_K', 'Q5_K_M', 'Q5_K_S', 'Q5_0', 'Q4_K_M', 'Q4_K_S', 'Q4_0', 'Q4_1', 'IQ4_NL', 'IQ4_XS',
  'Q3_K_L', 'Q3_K_M', 'Q2_K', 'NF4'];
const body = JSON.stringify({ params_b: 8, gpu: 'H200', precisions, batches, contexts: [2048] });
const optimize = `POST /v1/optimize HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const heavy = { ms: [], status: {} };
const heavyClients = Array.from({ length: heavyCount }, async () => {
  const c = new RawConnection(server.port);
  await c.connect();
  while (Date.now() < until) {
    const r = await c.exchange(optimize, 60000);
    heavy.status[r.status || 'none'] = (heavy.status[r.status || 'none'] ?? 0) + 1;
    if (!r.status) break;
    if (r.status === 200) heavy.ms.push(r.ms);
    if (r.status === 503) await sleep(50);
  }
  c.close();
});
await sleep(300);

const estimates = [];
const estimateFailures = [];
const estimator = (async () => {
  const c = new RawConnection(server.port);
  await c.connect();
  const request = 'GET /v1/estimate?params_b=7&arch=ada&precision=NF4 HTTP/1.1\r\nHost: bench\r\n\r\n';
  while (Date.now() < until) {
    const r = await c.exchange(request, 15000);
    if (r.status === 200) estimates.push(r.ms); else { estimateFailures.push(r.status || 'timeout'); break; }
    await sleep(10);
  }
  c.close();
})();

const health = [];
const healthFailures = [];
const prober = (async () => {
  while (Date.now() < until) {
    const r = await exchangeOnce(server.port, 'GET /healthz HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n', 15000);
    if (r.status === 200) health.push(r.ms); else healthFailures.push(r.status || r.error || 'timeout');
    await sleep(100);
  }
})();

await Promise.all([...heavyClients, estimator, prober]);
const rss = server.rssKiB();
const stopped = await server.stop();
const ms = (v) => (Number.isFinite(v) ? `${v.toFixed(2)} ms` : 'n/a');
const line = (name, v) => `${name}: ${v.length} answered; p50 ${ms(quantile(v, 0.5))}, p99 ${ms(quantile(v, 0.99))}, max ${ms(quantile(v, 1))}`;
console.log(`# ${new Date().toISOString()} hostile-mix bench: ${heavyCount} worst-case /v1/optimize in flight ` +
            `(${precisions.length} precisions × ${batches.length} batches), ${seconds} s, server --threads ${threads}, ${binary}`);
console.log(`${line('/healthz (new connection every 100 ms)', health)}; failures ${healthFailures.length}`);
console.log(`${line('/v1/estimate (keep-alive, back to back)', estimates)}; failures ${estimateFailures.length}`);
console.log(`${line('/v1/optimize 200s', heavy.ms)}; answers by status ${JSON.stringify(heavy.status)}`);
console.log(`server RSS at the end ${(rss / 1024).toFixed(1)} MiB; exit ${JSON.stringify(stopped)}`);

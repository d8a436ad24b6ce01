#!/usr/bin/env node
// Soak of `ecocompute serve` (loopback only, bounded in time): mixed traffic for N minutes — valid
// and invalid requests, uploads and reads, keep-alive and one-request connections, slow-header and
// idle sockets — while the server's resident memory is sampled from /proc. Every request has the
// statuses it may get; anything else, any 5xx and any dropped connection is counted as unexpected.
// Nothing is asserted; bench/RESULTS.md records the figures. Exit status 1 if anything unexpected.
//
//   node bench/server/soak.mjs [binary] [--minutes 10] [--workers 8] [--rate 600] [--threads 8] [--upload-ms 500]
// --upload-ms 0 leaves the uploads out: the replications table then stays empty, which separates
// SQLite's page cache (up to 2 MiB as the table grows) from the server's own memory.
import { readFileSync } from 'node:fs';
import { RawConnection, sleep } from './raw_http.mjs';
import { startServer } from './start_server.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const binary = argv[0] && !argv[0].startsWith('--') ? argv[0] : 'build/bin/ecocompute';
const minutes = option('minutes', 10);
const workers = option('workers', 8);
const rate = option('rate', 600);  // requests per second over all workers
const threads = option('threads', 8);
const uploadMs = option('upload-ms', 500);
const report = JSON.parse(readFileSync(new URL('../../tests/unit/server/fixtures/rtx4090_qwen2.5-3b_nf4.energy.json', import.meta.url)));

// One request's bytes. `length: false` leaves Content-Length out; `chunked` frames the body in one chunk.
function request(method, target, { headers = {}, body, length = true, chunked = false, close = false } = {}) {
  let head = `${method} ${target} HTTP/1.1\r\nHost: soak\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  if (close) head += 'Connection: close\r\n';
  if (body === undefined) return Buffer.from(`${head}\r\n`, 'latin1');
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  if (chunked) {
    return Buffer.concat([Buffer.from(`${head}Transfer-Encoding: chunked\r\n\r\n${bytes.length.toString(16)}\r\n`, 'latin1'),
      bytes, Buffer.from('\r\n0\r\n\r\n')]);
  }
  return Buffer.concat([Buffer.from(`${head}${length ? `Content-Length: ${bytes.length}\r\n` : ''}\r\n`, 'latin1'), bytes]);
}

const json = { 'Content-Type': 'application/json' };
const evil = { Origin: 'https://evil.example' };
const estimate = JSON.stringify({ params_b: 7, arch: 'ada', precision: 'NF4' });
// name, weight, bytes(close), statuses it may get, and whether the server ends the connection after it.
const scenarios = [
  ['GET /v1/estimate', 20, (c) => request('GET', '/v1/estimate?params_b=7&arch=ada&precision=NF4', { close: c }), [200]],
  ['POST /v1/estimate', 10, (c) => request('POST', '/v1/estimate', { headers: json, body: estimate, close: c }), [200]],
  ['POST /v1/estimate chunked', 2, (c) => request('POST', '/v1/estimate', { headers: json, body: estimate, chunked: true, close: c }), [200]],
  ['GET /v1/optimize', 5, (c) => request('GET', '/v1/optimize?params_b=7&gpu=RTX%204090&precisions=FP16,NF4', { close: c }), [200]],
  ['GET /v1/architectures', 3, (c) => request('GET', '/v1/architectures', { close: c }), [200]],
  ['GET /v1/curves', 2, (c) => request('GET', '/v1/curves', { close: c }), [200]],
  ['GET /v1/measurements', 2, (c) => request('GET', '/v1/measurements?arch=ada', { close: c }), [200]],
  ['GET /v1/replications', 3, (c) => request('GET', '/v1/replications?limit=5', { headers: evil, close: c }), [200]],
  ['POST /v1/check', 3, (c) => request('POST', '/v1/check', { headers: json, body: JSON.stringify(report), close: c }), [200]],
  ['GET /openapi.json', 1, (c) => request('GET', '/openapi.json', { close: c }), [200]],
  ['GET /healthz', 5, (c) => request('GET', '/healthz', { close: c }), [200]],
  ['HEAD /healthz', 1, (c) => request('HEAD', '/healthz', { close: c }), [200]],
  ['GET /', 1, (c) => request('GET', '/', { close: c }), [200]],
  ['OPTIONS read preflight', 1, (c) => request('OPTIONS', '/v1/estimate', { headers: { ...evil, 'Access-Control-Request-Method': 'POST' }, close: c }), [204]],
  ['OPTIONS write preflight (other origin)', 1, (c) => request('OPTIONS', '/v1/replications', { headers: { ...evil, 'Access-Control-Request-Method': 'POST' }, close: c }), [403]],
  ['bad parameter', 3, (c) => request('GET', '/v1/estimate?params_b=abc&arch=ada', { close: c }), [400]],
  ['invalid UTF-8 query', 2, (c) => request('GET', '/v1/estimate?params_b=7&arch=%ff', { close: c }), [400]],
  ['invalid UTF-8 path', 1, (c) => request('GET', '/%ff', { close: c }), [400]],
  ['invalid UTF-8 header', 1, (c) => request('GET', '/healthz', { headers: { 'X-Note': 'caf\xe9' }, close: c }), [400]],
  ['invalid UTF-8 body', 1, (c) => request('POST', '/v1/estimate', { headers: json, body: Buffer.from('{"arch":"\xff"}', 'latin1'), close: c }), [400]],
  ['PUT', 1, (c) => request('PUT', '/v1/estimate', { close: c }), [405]],
  ['DELETE', 1, (c) => request('DELETE', '/v1/replications', { close: c }), [405]],
  ['unknown path', 2, (c) => request('GET', '/v1/nothing', { close: c }), [404]],
  ['POST without length', 1, (c) => request('POST', '/v1/estimate', { length: false, close: c }), [411]],
  ['9 KiB estimate', 1, () => request('POST', '/v1/estimate', { headers: json, body: ' '.repeat(9 * 1024) }), [413], true],
  ['upload as text/plain', 1, () => request('POST', '/v1/replications', { headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify(report) }), [415], true],
  ['malformed request line', 1, () => Buffer.from('BAD REQUEST\r\n\r\n'), [400], true],
].map(([name, weight, bytes, statuses, ends = false]) => ({ name, weight, bytes, statuses, ends }));
const totalWeight = scenarios.reduce((s, x) => s + x.weight, 0);
const pick = () => {
  let r = Math.random() * totalWeight;
  for (const s of scenarios) if ((r -= s.weight) < 0) return s;
  return scenarios[0];
};

const server = await startServer(binary, ['--threads', String(threads)]);
const started = Date.now();
const until = started + minutes * 60_000;
const counts = new Map();   // scenario → count
const unexpected = new Map();  // "scenario → status" → count
let fiveHundreds = 0;
const note = (name, status, expected) => {
  counts.set(name, (counts.get(name) ?? 0) + 1);
  if (status >= 500) fiveHundreds += 1;
  if (!expected.includes(status)) {
    const key = `${name} → ${status || 'no answer'}`;
    unexpected.set(key, (unexpected.get(key) ?? 0) + 1);
  }
};

// Workers: a kept-alive connection for most requests, a fresh one-request connection for some.
async function worker(index) {
  const interval = (workers * 1000) / rate;
  let next = Date.now() + (index * interval) / workers;
  let kept = null;
  while (Date.now() < until) {
    const s = pick();
    const oneShot = s.ends || Math.random() < 0.3;
    let c = oneShot ? new RawConnection(server.port) : kept;
    if (!c || c.closed) {
      c = new RawConnection(server.port);
      if (!oneShot) kept = c;
    }
    if (!c.socket) {
      try { await c.connect(); } catch { note(s.name, 0, s.statuses); continue; }
    }
    const r = await c.exchange(s.bytes(oneShot && !s.ends), 15000);
    note(s.name, r.status, s.statuses);
    if (oneShot || s.ends) c.close();
    next += interval;
    const wait = next - Date.now();
    if (wait > 0) await sleep(wait);
    else next = Date.now();
  }
  kept?.close();
}

// Uploads: a new report every uploadMs, every fifth one a repeat of an earlier one (200, not stored twice).
async function uploader() {
  if (uploadMs <= 0) return;
  let n = 0;
  while (Date.now() < until) {
    const repeat = n > 0 && n % 5 === 0;
    const body = JSON.stringify({ ...report, benchmark: `soak upload ${repeat ? n - 1 : n}` });
    const c = new RawConnection(server.port);
    try { await c.connect(); } catch { note('upload', 0, [201]); continue; }
    const r = await c.exchange(request('POST', '/v1/replications', { headers: json, body, close: true }), 15000);
    note(repeat ? 'upload (repeat)' : 'upload', r.status, repeat ? [200] : [201]);
    c.close();
    n += 1;
    await sleep(uploadMs);
  }
}

// A slow-header socket at a time (a line a second): the server must cut it off.
let slowCut = 0;
let slowNotCut = 0;
async function slowSender() {
  while (Date.now() < until - 15_000) {
    const c = new RawConnection(server.port);
    await c.connect();
    c.write('GET /healthz HTTP/1.1\r\nHost: soak\r\n');
    for (let line = 0; line < 15 && !(await c.waitClosed(1000)); ++line) c.write(`X-Slow-${line}: still coming\r\n`);
    if (c.closed) slowCut += 1; else slowNotCut += 1;
    c.close();
  }
}

// An idle kept-alive socket at a time: answered once, then closed by the server after its idle timeout.
let idleClosed = 0;
let idleNotClosed = 0;
async function idler() {
  while (Date.now() < until - 15_000) {
    const c = new RawConnection(server.port);
    await c.connect();
    const r = await c.exchange(request('GET', '/healthz'), 15000);
    note('GET /healthz (then idle)', r.status, [200]);
    if (await c.waitClosed(10_000)) idleClosed += 1; else idleNotClosed += 1;
    c.close();
  }
}

// Resident memory every 10 s.
const rss = [];
async function sampler() {
  while (Date.now() < until) {
    rss.push([(Date.now() - started) / 1000, server.rssKiB()]);
    await sleep(10_000);
  }
  rss.push([(Date.now() - started) / 1000, server.rssKiB()]);
}

await Promise.all([...Array.from({ length: workers }, (_, i) => worker(i)), uploader(), slowSender(), idler(), sampler()]);
const stopped = await server.stop();

const total = [...counts.values()].reduce((a, b) => a + b, 0);
const at = (fraction) => rss[Math.min(rss.length - 1, Math.round(fraction * (rss.length - 1)))];
const mib = (kib) => `${(kib / 1024).toFixed(1)} MiB`;
console.log(`# ${new Date().toISOString()} soak of ${binary}: ${minutes} min, ${workers} workers at ~${rate} req/s, ` +
            `${uploadMs > 0 ? `an upload every ${uploadMs} ms` : 'no uploads'}, server --threads ${threads}`);
console.log(`requests: ${total} (${(total / (minutes * 60)).toFixed(0)}/s) in ${scenarios.length + 3} kinds; ` +
            `unexpected: ${[...unexpected.values()].reduce((a, b) => a + b, 0)}; 5xx: ${fiveHundreds}`);
for (const [key, n] of unexpected) console.log(`  unexpected ${key}: ${n}`);
console.log(`RSS: start ${mib(at(0)[1])} (t=${at(0)[0].toFixed(0)} s), middle ${mib(at(0.5)[1])} ` +
            `(t=${at(0.5)[0].toFixed(0)} s), end ${mib(at(1)[1])} (t=${at(1)[0].toFixed(0)} s); ` +
            `min ${mib(Math.min(...rss.map((x) => x[1])))}, max ${mib(Math.max(...rss.map((x) => x[1])))}`);
console.log(`slow-header sockets cut off: ${slowCut}, not cut off: ${slowNotCut}; idle sockets closed: ${idleClosed}, ` +
            `not closed: ${idleNotClosed}; exit on SIGTERM: ${JSON.stringify(stopped)}`);
console.log(`per kind: ${[...counts].map(([k, n]) => `${k} ${n}`).join('; ')}`);
console.log(`RSS series (s, KiB): ${rss.map(([t, k]) => `${t.toFixed(0)}:${k}`).join(' ')}`);
process.exitCode = unexpected.size > 0 || slowNotCut > 0 || idleNotClosed > 0 || stopped.code !== 0 ? 1 : 0;

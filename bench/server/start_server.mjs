// Starts `ecocompute serve` on a free loopback port with its own store for a bench, and reads its
// resident memory. The caller stops it with stop().
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from './raw_http.mjs';

export async function startServer(binary, extraArgs = []) {
  const work = mkdtempSync(join(tmpdir(), 'ecocompute-bench-'));
  const portFile = join(work, 'port');
  const args = ['--log-level', 'warn', 'serve', '--port', '0', '--port-file', portFile, '--db', join(work, 'r.sqlite'),
    '--rate-limit', '0', '--store', join(work, 'none.sqlite'), '--web-dir', join(work, 'none'),
    ...extraArgs];
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  let port = 0;
  for (let i = 0; i < 200 && !port; ++i) {
    try { port = Number(readFileSync(portFile, 'utf8').trim()); } catch { await sleep(50); }
  }
  if (!port) {
    child.kill('SIGKILL');
    throw new Error(`server did not start: ${stderr}`);
  }
  return {
    port,
    pid: child.pid,
    stderr: () => stderr,
    /** Resident memory in KiB, from /proc. */
    rssKiB() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)[1]);
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
      const result = await exited;
      clearTimeout(timer);
      rmSync(work, { recursive: true, force: true });
      return result;
    },
  };
}

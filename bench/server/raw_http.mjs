// A raw HTTP/1.1 client over node:net for the server benches: it sends the exact bytes given (invalid
// UTF-8, a POST without Content-Length, a header that never ends) and reads responses framed by
// Content-Length, one at a time, on a connection that may be kept alive. Loopback only.
import net from 'node:net';

export class RawConnection {
  constructor(port, host = '127.0.0.1') {
    this.port = port;
    this.host = host;
    this.buffer = Buffer.alloc(0);
    this.closed = false;
    this.waiter = null;
  }

  /** Resolves once connected; rejects on a connection error. */
  connect() {
    return new Promise((resolve, reject) => {
      this.socket = net.connect({ port: this.port, host: this.host, noDelay: true }, () => resolve(this));
      this.socket.on('data', (chunk) => {
        this.buffer = Buffer.concat([this.buffer, chunk]);
        this.#wake();
      });
      this.socket.on('close', () => {
        this.closed = true;
        this.#wake();
      });
      this.socket.on('error', (err) => {
        this.error = err;
        this.closed = true;
        reject(err);
        this.#wake();
      });
    });
  }

  #wake() {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w();
    }
  }

  write(bytes) {
    if (!this.closed) this.socket.write(bytes);
  }

  /** Reads one response within timeoutMs: {status, headers, body}, or {status: 0, closed} if none came whole. */
  async read(timeoutMs = 10000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.#parse();
      if (parsed) return parsed;
      if (this.closed) return { status: 0, closed: true };
      const left = deadline - Date.now();
      if (left <= 0) return { status: 0, timedOut: true };
      await new Promise((resolve) => {
        const timer = setTimeout(() => { this.waiter = null; resolve(); }, left);
        this.waiter = () => { clearTimeout(timer); resolve(); };
      });
    }
  }

  /** Sends bytes and reads the response; adds elapsed milliseconds. */
  async exchange(bytes, timeoutMs = 10000) {
    const start = process.hrtime.bigint();
    this.write(bytes);
    const r = await this.read(timeoutMs);
    r.ms = Number(process.hrtime.bigint() - start) / 1e6;
    return r;
  }

  /** Resolves true when the server closes the connection within timeoutMs. */
  async waitClosed(timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) {
      this.buffer = Buffer.alloc(0);
      await new Promise((resolve) => {
        const timer = setTimeout(() => { this.waiter = null; resolve(); }, deadline - Date.now());
        this.waiter = () => { clearTimeout(timer); resolve(); };
      });
    }
    return this.closed;
  }

  close() {
    this.closed = true;
    this.socket?.destroy();
  }

  #parse() {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const head = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(head[0].split(' ')[1]);
    const headers = {};
    for (const line of head.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const noBody = status === 204 || status === 304 || (status >= 100 && status < 200);
    const length = noBody ? 0 : Number(headers['content-length'] ?? 0);
    if (this.buffer.length < end + 4 + length) return null;
    const body = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8');
    this.buffer = this.buffer.subarray(end + 4 + length);
    if (status === 100) return this.#parse();
    return { status, headers, body };
  }
}

/** Sends one request on a new connection and reads its response. */
export async function exchangeOnce(port, bytes, timeoutMs = 10000) {
  const c = new RawConnection(port);
  const start = process.hrtime.bigint();
  try {
    await c.connect();
  } catch (err) {
    return { status: 0, error: err.code ?? String(err), ms: Number(process.hrtime.bigint() - start) / 1e6 };
  }
  c.write(bytes);
  const r = await c.read(timeoutMs);
  r.ms = Number(process.hrtime.bigint() - start) / 1e6;
  c.close();
  return r;
}

/** Returns the q-quantile (0..1) of numbers (nearest rank). */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

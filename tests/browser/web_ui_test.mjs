// Drives Debian's chromium through the web UI of `ecocompute serve` with playwright-core: every tab,
// an estimate and its verdict, an energy.json dropped on the "Run it yourself" tab (its point and
// grade), its submission and its row in the gallery, a share link, and a phone-sized page.
// Usage: node web_ui_test.mjs <ecocompute binary> <web/dist folder> <fixture energy.json> <artefact folder>
//                            [<energy.json written by `ecocompute measure`>]
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, basename } from 'node:path';
import assert from 'node:assert/strict';

const [binary, webDir, fixturePath, artefacts, measuredPath] = process.argv.slice(2);
if (!artefacts) {
  console.error('usage: node web_ui_test.mjs <binary> <web/dist> <energy.json> <artefact folder>');
  process.exit(2);
}
mkdirSync(artefacts, { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'ecocompute-browser-'));
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const watchdog = setTimeout(() => { console.error('timed out after 240 s'); process.exit(1); }, 240000);

// Start the server on a free loopback port with its own store.
const portFile = join(work, 'port');
const server = spawn(binary, ['--log-level', 'warn', 'serve', '--port', '0', '--port-file', portFile, '--db', join(work, 'r.sqlite'),
  '--web-dir', webDir, '--rate-limit', '0', '--curves', 'published', '--store', join(work, 'no-store.sqlite')], { stdio: ['ignore', 'inherit', 'inherit'] });
let port = 0;
for (let i = 0; i < 300 && !port; i += 1) {
  if (existsSync(portFile)) port = Number(readFileSync(portFile, 'utf8').trim());
  if (!port) await sleep(50);
}
if (!port) { console.error('server did not start'); server.kill('SIGKILL'); process.exit(1); }
const base = `http://127.0.0.1:${port}`;

const browser = await chromium.launch({
  executablePath: chromiumPath,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
  // playwright gives every launch a fresh temporary --user-data-dir of its own (it refuses one passed here).
});

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed += 1;
    console.log(`ok - ${name}`);
  } catch (err) {
    failed += 1;
    console.log(`not ok - ${name}: ${err.stack || err}`);
  }
}

const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const page = await context.newPage();
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(String(e)));
page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(m.text()); });
await page.goto(`${base}/`);
await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });

await check('every tab opens its panel', async () => {
  for (const tab of ['curves', 'models', 'estimate', 'optimize', 'run', 'gallery']) {
    await page.click(`#tab-${tab}`);
    assert.equal(await page.getAttribute(`#tab-${tab}`, 'aria-selected'), 'true');
    assert.equal(await page.isVisible(`#panel-${tab}`), true, tab);
    await page.screenshot({ path: join(artefacts, `tab-${tab}.png`), fullPage: true });
  }
});

await check('tabs are keyboard accessible (arrow keys)', async () => {
  await page.click('#tab-curves');
  await page.focus('#tab-curves');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.getAttribute('#tab-models', 'aria-selected'), 'true');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-models');
  await page.keyboard.press('End');
  assert.equal(await page.getAttribute('#tab-gallery', 'aria-selected'), 'true');
});

await check('the curves tab draws a curve and the models table has rows', async () => {
  await page.click('#tab-curves');
  await page.selectOption('#curve-select', 'ada|transformers+bitsandbytes|NF4');
  assert.match(await page.textContent('#curve-summary'), /ada · transformers\+bitsandbytes · NF4: A = 54\.23, S = 131\.09/);
  await page.click('#tab-models');
  assert.ok(await page.locator('#models-table tbody tr').count() > 10);
});

await check('an estimate shows the same verdict as the API', async () => {
  await page.click('#tab-estimate');
  await page.fill('#estimate-form input[name=params_b]', '7');
  await page.selectOption('#estimate-form select[name=arch]', 'ada');
  await page.selectOption('#estimate-form select[name=precision]', 'NF4');
  await page.click('#estimate-form button[type=submit]');
  await page.waitForSelector('#estimate-verdict', { timeout: 15000 });
  const expected = await (await fetch(`${base}/v1/estimate?params_b=7&arch=ada&precision=NF4&batch=1&ctx=2048`)).json();
  assert.equal((await page.textContent('#estimate-verdict')).trim(), expected.verdict);
  assert.match(await page.textContent('#estimate-numbers'), new RegExp(`basis: ${expected.basis}`));
  await page.screenshot({ path: join(artefacts, 'estimate-verdict.png'), fullPage: true });
});

await check('the optimize tab shows a recommendation', async () => {
  await page.click('#tab-optimize');
  await page.click('#optimize-form button[type=submit]');
  await page.waitForSelector('#optimize-recommended', { timeout: 15000 });
  assert.match(await page.textContent('#optimize-recommended'), /Recommended|Nothing meets/);
  await page.screenshot({ path: join(artefacts, 'optimize.png'), fullPage: true });
});

let shareUrl = '';
await check('a dropped energy.json is drawn and graded by the server (POST /v1/check)', async () => {
  await page.click('#tab-run');
  const text = readFileSync(fixturePath, 'utf8');
  // A real drop event carrying the file, as a person dragging it would send.
  await page.evaluate(({ text, name }) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([text], name, { type: 'application/json' }));
    document.getElementById('drop-zone').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, { text, name: basename(fixturePath) });
  await page.waitForSelector('#run-grade', { timeout: 15000 });
  // Published ada NF4 curve at 3 B: 6.76 %; this run (3584.88 − 3557.99)/3557.99 = +0.76 %; |Δ| = 6.0 ≤ 2 × 11.48 → inside.
  assert.equal((await page.textContent('#run-grade')).trim(), 'inside');
  assert.match(await page.textContent('#run-summary'), /ΔE \+0\.76 % vs FP16/);
  const points = await page.evaluate(() => {
    const chart = Chart.getChart(document.getElementById('run-chart'));
    return chart.data.datasets.filter((d) => d.label === 'your report').map((d) => d.data[0]);
  });
  assert.equal(points.length, 1);
  assert.equal(points[0].x, 3);
  assert.ok(Math.abs(points[0].y - 0.7557) < 0.001);
  shareUrl = await page.getAttribute('#share-link', 'href');
  const overlay = JSON.parse(Buffer.from(new URL(shareUrl).searchParams.get('overlay'), 'base64url').toString());
  assert.deepEqual(overlay, { m: 'Qwen/Qwen2.5-3B', N: 3, a: 'ada', p: 'NF4', e: 0.76, b: 'measured', g: 'RTX 4090' });
  await page.screenshot({ path: join(artefacts, 'run-overlay.png'), fullPage: true });
});

await check('an energy.json written by ecocompute measure is read and honestly not graded', async () => {
  if (!measuredPath) throw new Error('no measure report given');
  const text = readFileSync(measuredPath, 'utf8');
  await page.evaluate(({ text, name }) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([text], name, { type: 'application/json' }));
    document.getElementById('drop-zone').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, { text, name: basename(measuredPath) });
  // H200 session of 2026-11-29, Q4_0 vs F16: paired mean −51.906 %; no published curve covers hopper Q4_0.
  await page.waitForFunction(() => /51\.91/.test(document.getElementById('run-summary')?.textContent || ''), null, { timeout: 15000 });
  assert.equal((await page.textContent('#run-grade')).trim(), 'not gradeable');
  await page.screenshot({ path: join(artefacts, 'run-measured-report.png'), fullPage: true });
  // Put the published-style report back for the submission check below.
  await page.evaluate(({ text, name }) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([text], name, { type: 'application/json' }));
    document.getElementById('drop-zone').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, { text: readFileSync(fixturePath, 'utf8'), name: basename(fixturePath) });
  await page.waitForFunction(() => /\+0\.76/.test(document.getElementById('run-summary')?.textContent || ''), null, { timeout: 15000 });
});

await check('submitting stores it and the gallery lists it with its grade', async () => {
  await page.click('#submit-report');
  await page.waitForFunction(() => /Stored as replication #\d+/.test(document.getElementById('submit-result').textContent), null, { timeout: 15000 });
  const id = await page.getAttribute('#submit-result', 'data-id');
  await page.click('#tab-gallery');
  const row = page.locator(`#gallery-table tbody tr[data-id="${id}"]`);
  await row.waitFor({ timeout: 15000 });
  assert.match(await row.textContent(), /Qwen\/Qwen2\.5-3B.*RTX 4090.*NF4.*inside/);
  await page.screenshot({ path: join(artefacts, 'gallery.png'), fullPage: true });
});

await check('a share link opens the run tab with the overlay', async () => {
  const shared = await context.newPage();
  await shared.goto(shareUrl);
  await shared.waitForSelector('#run-grade', { timeout: 15000 });
  assert.equal(await shared.getAttribute('#tab-run', 'aria-selected'), 'true');
  assert.equal((await shared.textContent('#run-grade')).trim(), 'inside');
  await shared.close();
});

await check('the page is readable on a phone (no horizontal overflow)', async () => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const p = await phone.newPage();
  await p.goto(`${base}/?tab=estimate`);
  await p.waitForSelector('body[data-ready="true"]');
  const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `page is ${overflow}px wider than the screen`);
  await p.screenshot({ path: join(artefacts, 'phone-estimate.png'), fullPage: true });
  await phone.close();
});

await check('no script errors on the page', async () => {
  assert.deepEqual(pageErrors, []);
});

await browser.close();
server.kill('SIGTERM');
await new Promise((r) => server.once('exit', r));
rmSync(work, { recursive: true, force: true });
clearTimeout(watchdog);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

// Builds web/dist: the page's own files from web/src plus Chart.js from node_modules (no CDN).
// Run with `npm ci && npm run build` in web/; `ecocompute serve` serves web/dist.
import { cpSync, mkdirSync, rmSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
const chart = join(here, 'node_modules', 'chart.js', 'dist', 'chart.umd.js');
if (!existsSync(chart)) {
  console.error('build: node_modules/chart.js is missing; run `npm ci` in web/ first');
  process.exit(1);
}
rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, 'vendor'), { recursive: true });
cpSync(join(here, 'src'), dist, { recursive: true });
cpSync(chart, join(dist, 'vendor', 'chart.umd.js'));
cpSync(join(here, 'node_modules', 'chart.js', 'LICENSE.md'), join(dist, 'vendor', 'chart.js.LICENSE.md'));
console.log(`build: wrote ${dist}`);

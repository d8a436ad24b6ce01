// Spawns `ecocompute mcp` with the official MCP TypeScript SDK's Client over StdioClientTransport and
// calls every tool. Usage: node mcp_client_test.mjs <path of the ecocompute binary>. Exit 0 = passed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const binary = process.argv[2];
if (!binary) {
  console.error('usage: node mcp_client_test.mjs <ecocompute binary>');
  process.exit(2);
}

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

const transport = new StdioClientTransport({
  command: binary,
  args: ['--log-level', 'warn', 'mcp', '--store', '/nonexistent/ecocompute-mcp-test.sqlite'],
  // The fitted model of the shipped evidence: the ctest run's fit folder (tests/CMakeLists.txt), else a
  // folder of the test's, never $HOME.
  env: { ...process.env, ECOCOMPUTE_CACHE_DIR: process.env.ECOCOMPUTE_CACHE_DIR || join(tmpdir(), `ecocompute-mcp-test-${process.pid}`) },
  stderr: 'inherit',
});
const client = new Client({ name: 'ecocompute-mcp-client-test', version: '1.0.0' });
const timer = setTimeout(() => { console.error('timed out after 120 s'); process.exit(1); }, 120000);

await client.connect(transport);

await check('initialize negotiated a version and named the server', async () => {
  assert.equal(client.getServerVersion().name, 'ecocompute');
  assert.ok(client.getServerCapabilities().tools);
});

await check('tools/list offers the four tools with object input schemas', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ['should_i_quantize', 'recommend_config', 'list_architectures', 'plan_measurement']);
  for (const t of tools) assert.equal(t.inputSchema.type, 'object');
});

await check('should_i_quantize answers with an estimate and its basis', async () => {
  const r = await client.callTool({ name: 'should_i_quantize', arguments: { params_b: 7, arch: 'ada', precision: 'NF4' } });
  assert.equal(r.isError, false);
  assert.equal(r.structuredContent.arch_used, 'ada');
  assert.ok(['quantize', 'do_not_quantize', 'depends'].includes(r.structuredContent.recommendation));
  assert.equal(r.content[0].type, 'text');
});

await check('should_i_quantize and recommend_config state the quality cost with its own basis', async () => {
  const r = await client.callTool({ name: 'should_i_quantize', arguments: { params_b: 8.03, gpu: 'H200', engine: 'llama.cpp', precision: 'Q4_0' } });
  assert.equal(r.isError, false);
  assert.equal(r.structuredContent.quality_cost.basis, 'transferred');
  assert.match(r.structuredContent.quality_cost.source, /tools\/perplexity\/README\.md:\d+/);
  assert.match(r.content[0].text, /Quality: perplexity \+7\.52 % vs F16/);
  const o = await client.callTool({ name: 'recommend_config', arguments: { params_b: 8.03, gpu: 'H200', engine: 'llama.cpp', max_delta_ppl_pct: 1 } });
  assert.equal(o.isError, false);
  const rec = o.structuredContent.recommended;
  assert.ok(rec && !['Q4_0', 'Q4_K_M', 'IQ4_NL'].includes(rec.precision), JSON.stringify(rec && rec.precision));
  for (const c of o.structuredContent.pareto_energy_latency.filter((c) => c.precision === 'Q4_0')) assert.equal(c.feasible, false);
  assert.ok(!o.structuredContent.alternatives.some((c) => c.precision === 'Q4_0'));
  assert.ok(rec.quality === null || rec.quality.basis === 'transferred');
  assert.match(o.content[0].text, /Quality: Q(8_0|6_K): ΔPPL|Recommended: F(P)?16 /);
});

await check('should_i_quantize reports bad input as a tool error', async () => {
  const r = await client.callTool({ name: 'should_i_quantize', arguments: { params_b: -1, arch: 'ada' } });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /params_b/);
});

await check('recommend_config returns a Pareto front', async () => {
  const r = await client.callTool({ name: 'recommend_config', arguments: { params_b: 7, gpu: 'RTX 4090' } });
  assert.equal(r.isError, false);
  assert.ok(Array.isArray(r.structuredContent.pareto_energy_latency));
});

await check('list_architectures lists the measured architectures', async () => {
  const r = await client.callTool({ name: 'list_architectures', arguments: {} });
  assert.deepEqual(r.structuredContent.architectures.map((a) => a.arch).sort(), ['ada', 'ampere', 'blackwell', 'hopper', 'turing']);
});

await check('plan_measurement gives the exact measure command', async () => {
  const r = await client.callTool({ name: 'plan_measurement', arguments: { model: 'models/qwen2-0.5b-f16.gguf' } });
  assert.equal(r.structuredContent.command,
    'ecocompute measure --model models/qwen2-0.5b-f16.gguf --baseline F16 --precisions Q8_0,Q4_K_M --trials 3 --out results/qwen2-0.5b-f16');
});

await check('an unknown tool is a protocol error', async () => {
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /unknown tool/);
});

await client.close();
clearTimeout(timer);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

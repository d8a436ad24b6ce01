// Batch and concurrency of measured rows, and the colour each level gets on every chart. Batch decides
// the sign of ΔE on the H200 (the atlas), so no chart may draw rows of two batches as one series.
'use strict';

// A row of `measure --batch N` has batch_size N. A row of `measure-endpoint` at N concurrent requests
// also arrives with batch_size N: the API has no concurrency field, only the row key's "|cN|" segment
// says which it is (each request there is one sequence).
function rowConcurrency(r) {
  const m = /\|c(\d+)\|/.exec(r.row_key || '');
  return m ? Number(m[1]) : null;
}
function rowBatch(r) {
  if (rowConcurrency(r) !== null) return null;
  return Number.isInteger(r.batch_size) && r.batch_size > 0 ? r.batch_size : 1;
}
// One key per condition: "b8" (8 parallel sequences) and "c8" (8 concurrent requests) stay apart, and a
// row measured after a prompt longer than the 2048-token baseline (context_tokens) is its own condition,
// "b1-ctx4096": the context moves ΔE by 12–16 points at batch 1.
function rowLevel(r) {
  const c = rowConcurrency(r);
  const load = c !== null ? `c${c}` : `b${rowBatch(r)}`;
  return Number.isInteger(r.context_tokens) && r.context_tokens > 0 ? `${load}-ctx${r.context_tokens}` : load;
}
// The batch (or concurrency) of a level, and its context beyond the baseline (0 when none).
function levelLoad(level) { return parseInt(String(level).slice(1), 10); }
function levelContext(level) {
  const m = /-ctx(\d+)$/.exec(String(level));
  return m ? Number(m[1]) : 0;
}
function levelText(level) {
  const text = level.startsWith('c') ? `concurrency ${levelLoad(level)}` : `batch ${levelLoad(level)}`;
  const context = levelContext(level);
  return context > 0 ? `${text} at context ${context}` : text;
}

// Fixed colours for the levels the campaigns use, so a batch keeps its colour from chart to chart.
const LEVEL_COLOURS = { 1: '#1f2937', 2: '#6f42c1', 4: '#1f6feb', 8: '#b42318', 16: '#9a6700', 32: '#0b6e4f', 64: '#bf3989' };
function levelColour(level) {
  const n = levelLoad(level);
  const context = levelContext(level);
  if (!context && LEVEL_COLOURS[n]) return LEVEL_COLOURS[n];
  const k = n + context / 64;  // a long-context level is never drawn in its batch's colour
  return `hsl(${(k * 47) % 360}, 55%, 38%)`;
}

// The batch a fitted curve belongs to: its own batch field where the API gives one (the model's curves
// are drawn at batch 1), else the batch of the measured rows its points are (matched by session, model
// and ΔE); null when the points do not say one batch.
function curveBatch(c, rows) {
  if (Number.isInteger(c.batch) && c.batch > 0) return `b${c.batch}`;
  const found = new Set();
  for (const p of c.points || []) {
    const r = rows.find((x) => x.session_id === p.session_id && x.model === p.model && x.engine === c.engine
      && x.precision === c.precision && typeof x.delta_pct === 'number' && Math.abs(x.delta_pct - p.delta_pct) < 1e-6);
    if (r) found.add(rowLevel(r));
  }
  return found.size === 1 ? [...found][0] : null;
}

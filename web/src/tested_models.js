// The "Tested models" tab: every measured row of GET /v1/measurements as a table one can sort (click a
// header), filter, and take away as CSV. Batch and concurrency have their own columns: two rows of one
// model and format at different batches are different measurements, not a contradiction.
'use strict';

const modelsView = { key: null, dir: 1 };

// A row of measure-endpoint names the model by what the server called it, which is the GGUF file's
// format ("Q4_K_M"). The size is the report's own; the name is the one measured at that size on the same
// GPU by llama.cpp, said to be matched by size. Without such a row only the size is given.
const FORMAT_NAME = /^(F16|BF16|F32|FP16|Q\d.*|IQ\d.*|NF4|INT8|INT4)$/i;
function modelName(r) {
  if (!FORMAT_NAME.test(r.model || '')) return r.model;
  const twin = state.rows.find((x) => x.gpu === r.gpu && !FORMAT_NAME.test(x.model || '') && typeof x.params_b === 'number'
    && Math.abs(x.params_b - r.params_b) <= 0.005 * r.params_b);
  return twin ? `${twin.model} (by size)` : `${fmt(r.params_b, 2)} B model`;
}

// One entry per column: what is shown, what sorts (numbers as numbers), what the CSV gets.
const MODEL_COLUMNS = [
  { key: 'model', label: 'Model', value: (r) => modelName(r) },
  { key: 'gpu', label: 'GPU', value: (r) => r.gpu },
  { key: 'engine', label: 'Engine', value: (r) => r.engine },
  { key: 'precision', label: 'Precision', value: (r) => r.precision },
  { key: 'batch', label: 'Batch', num: true, value: (r) => rowBatch(r), text: (v) => (v === null ? '–' : String(v)) },
  { key: 'concurrency', label: 'Concur\u00adrency', num: true, value: (r) => rowConcurrency(r), text: (v) => (v === null ? '–' : String(v)) },
  // 1 mJ/token × 1e6 tokens = 1e6 mJ = 1000 J.
  { key: 'energy', label: 'J / 1M tokens', num: true, value: (r) => r.energy_per_token_mj * 1000, text: (v) => fmt(v, 0) },
  { key: 'fp16', label: 'FP16 J / 1M', num: true, value: (r) => r.fp16_energy_per_token_mj * 1000, text: (v) => fmt(v, 0) },
  { key: 'delta', label: 'ΔE %', num: true, value: (r) => r.delta_pct, text: (v) => signed(v) },
  { key: 'n', label: 'n', num: true, value: (r) => r.n_trials || 1, text: (v) => String(v) },
  // Measured on the row's own weights where it has a perplexity; otherwise (synthetic weights) the format's
  // quality cost for that model from the evidence, marked with its basis so it never reads as measured.
  { key: 'dppl', label: 'Δ perplexity %', num: true,
    value: (r) => (missing(r.delta_perplexity_pct) && r.quality_cost ? r.quality_cost.delta_ppl_pct : r.delta_perplexity_pct),
    text: (v, r) => (missing(r.delta_perplexity_pct) && r.quality_cost ? (missing(v) ? `– (${r.quality_cost.basis})` : `${signed(v, 2)} (${r.quality_cost.basis})`) : signed(v, 2)),
    title: (r) => (missing(r.delta_perplexity_pct) && r.quality_cost ? (r.quality_cost.reason || `${r.quality_cost.basis_text}: ${r.quality_cost.source}`) : '') },
];
const cellText = (col, r) => { const v = col.value(r); return col.text ? col.text(v, r) : String(v ?? '–'); };
const missing = (v) => v === null || v === undefined || (typeof v === 'number' && !isFinite(v));

function visibleModelRows() {
  const filter = $('models-filter').value.trim().toLowerCase();
  const rows = state.rows.filter((r) => !filter || MODEL_COLUMNS.map((c) => cellText(c, r)).join(' ').toLowerCase().includes(filter));
  const col = MODEL_COLUMNS.find((c) => c.key === modelsView.key);
  if (!col) return rows;
  // Rows without a value go last whichever way the column is sorted.
  return rows.map((r, i) => ({ r, i, v: col.value(r) })).sort((a, b) => {
    if (missing(a.v) || missing(b.v)) return (missing(a.v) - missing(b.v)) || a.i - b.i;
    const d = col.num ? a.v - b.v : String(a.v).localeCompare(String(b.v));
    return d * modelsView.dir || a.i - b.i;
  }).map((x) => x.r);
}

function renderModelsHead() {
  const tr = document.createElement('tr');
  for (const col of MODEL_COLUMNS) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.dataset.key = col.key;
    if (col.num) th.className = 'num';
    th.setAttribute('aria-sort', modelsView.key === col.key ? (modelsView.dir > 0 ? 'ascending' : 'descending') : 'none');
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'sort';
    button.textContent = col.label;
    button.addEventListener('click', () => {
      modelsView.dir = modelsView.key === col.key ? -modelsView.dir : 1;
      modelsView.key = col.key;
      renderModels();
    });
    th.appendChild(button);
    tr.appendChild(th);
  }
  const head = $('models-table').querySelector('thead');
  head.innerHTML = '';
  head.appendChild(tr);
}

function renderModels() {
  renderModelsHead();
  const body = $('models-table').querySelector('tbody');
  body.innerHTML = '';
  const rows = visibleModelRows();
  for (const r of rows) {
    const tr = document.createElement('tr');
    tr.dataset.rowKey = r.row_key || '';
    for (const col of MODEL_COLUMNS) {
      const td = document.createElement('td');
      td.textContent = cellText(col, r);
      if (col.title && col.title(r)) td.title = col.title(r);
      if (col.num) td.className = 'num';
      td.dataset.key = col.key;
      if (col.key === 'model' && r.model !== td.textContent) td.title = `the report names the model "${r.model}"`;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  $('models-count').textContent = `${rows.length} of ${state.rows.length} rows`;
}

// The CSV holds what the table shows (after the filter, in its order), one line per row, with the
// figures as displayed and an empty field where the table shows "–".
function csvField(text) {
  const t = text === '–' ? '' : text;
  return /[",\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
}
function modelsCsv() {
  const lines = [MODEL_COLUMNS.map((c) => csvField(c.label.replace(/\u00ad/g, ''))).join(',')];
  for (const r of visibleModelRows()) lines.push(MODEL_COLUMNS.map((c) => csvField(cellText(c, r))).join(','));
  return `${lines.join('\n')}\n`;
}
function downloadModelsCsv() {
  const url = URL.createObjectURL(new Blob([modelsCsv()], { type: 'text/csv' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = 'ecocompute-tested-models.csv';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

document.addEventListener('DOMContentLoaded', () => {
  $('models-filter').addEventListener('input', renderModels);
  $('models-csv').addEventListener('click', downloadModelsCsv);
});
